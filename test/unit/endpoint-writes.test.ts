/**
 * Every path that changes an endpoint announces its slug on the bus (`config.endpoint`), after
 * the change is committed: the real verbs against the real state store (PGlite, and Postgres when
 * the server backend is under test), the in-process bus in between.
 */
import { beforeAll, describe, expect, test } from 'bun:test';
import { decodeJson, subjects } from '../../src/bus/types';
import { AppError } from '../../src/errors';
import { randomId } from '../../src/ids';
import { deleteAccount } from '../../src/services/accounts';
import { confirmClaim } from '../../src/services/agent/claim';
import { agentDeps } from '../../src/services/agent/deps';
import { RateMeter } from '../../src/services/agent/rate-meter';
import { registerAnonymous } from '../../src/services/agent/register';
import { createSandboxEndpoint } from '../../src/services/agent/sandbox';
import { sweepOnce } from '../../src/services/expiry-sweeper';
import { createEndpoint, deleteEndpoint, updateEndpoint } from '../../src/services/endpoints';
import { findLiveKey, insertUser } from '../../src/stores/state/accounts';
import { findEndpointBySlug } from '../../src/stores/state/endpoints';
import type { EndpointRow, UserRow } from '../../src/stores/state/schema';
import { sha256Hex } from '../../src/ids';
import { BACKENDS } from '../support/backends';
import { useServices } from '../support/services';

for (const backend of BACKENDS) {
  describe(`endpoint changes announce themselves [${backend}]`, () => {
    const c = useServices(backend, { tmpPrefix: 'hookcap-endpoint-writes-', env: { SANDBOX_TTL_MS: '60000' } });
    /** What each announcement said, and the endpoint's row as another node would read it then. */
    const heard: { slug: string; row: EndpointRow | null }[] = [];
    const pending: Promise<void>[] = [];

    beforeAll(() => {
      const { db } = c();
      c().bus.subscribe(subjects.endpointChanged, (data) => {
        const { slug } = decodeJson<{ slug: string }>(data);
        pending.push(findEndpointBySlug(db, slug).then((row) => void heard.push({ slug, row })));
      });
    });

    /** Waits for announcements already sent to be heard (the bus delivers asynchronously). */
    async function settle(): Promise<void> {
      await Bun.sleep(0);
      await Promise.all(pending.splice(0));
    }

    /** Runs a change and returns what was announced while it ran. */
    async function announced(change: () => Promise<unknown>): Promise<{ slug: string; row: EndpointRow | null }[]> {
      await settle();
      heard.length = 0;
      await change();
      await settle();
      return [...heard];
    }

    const user = async (): Promise<UserRow> => {
      const row = await insertUser(c().db, { id: randomId('usr'), email: `${randomId('u')}@example.com`, plan: 'free', createdAt: Date.now() });
      if (!row) throw new Error('user');
      return row;
    };
    const caller = () => ({ ip: `203.0.113.${Math.floor(Math.random() * 250)}`, meter: new RateMeter(c()) });

    test('create, update and delete: each announced once, with the change already visible', async () => {
      const u = await user();
      let ep: EndpointRow | null = null;
      const created = await announced(async () => {
        ep = await createEndpoint(c(), u, 'announce');
      });
      if (!ep) throw new Error('not created');
      const { slug } = ep;
      expect(created).toEqual([{ slug, row: expect.objectContaining({ slug, name: 'announce' }) }]);

      const updated = await announced(() => updateEndpoint(c(), u, slug, { mockResponse: { status: 202, body: '', headers: {} } }));
      expect(updated).toEqual([{ slug, row: expect.objectContaining({ mockResponse: { status: 202, body: '', headers: {} } }) }]);

      expect(await announced(() => deleteEndpoint(c(), u, slug))).toEqual([{ slug, row: null }]);
    });

    test('deleting an account announces each of its endpoints, gone', async () => {
      const u = await user();
      const slugs = [(await createEndpoint(c(), u, 'a')).slug, (await createEndpoint(c(), u, 'b')).slug];
      const heardNow = await announced(() => deleteAccount(c(), u));
      expect(heardNow.map((h) => h.slug).sort()).toEqual(slugs.sort());
      expect(heardNow.every((h) => h.row === null)).toBe(true);
    });

    test('the sandbox: created, adopted on claim, and swept when expired, each announced', async () => {
      const deps = agentDeps(c());
      const reg = await registerAnonymous(deps, { clientName: 'announcer' }, caller());
      const found = await findLiveKey(c().db, sha256Hex(reg.credential));
      if (!found) throw new Error('no key');
      let sandbox = { slug: '' };
      const created = await announced(async () => {
        sandbox = await createSandboxEndpoint(c(), found.key);
      });
      expect(created).toEqual([{ slug: sandbox.slug, row: expect.objectContaining({ ownerKeyId: found.key.id, userId: null }) }]);

      const human = await user();
      const claimed = await announced(() => confirmClaim(deps, human, { claimToken: reg.claim_token }, caller()));
      expect(claimed).toEqual([{ slug: sandbox.slug, row: expect.objectContaining({ userId: human.id, ownerKeyId: null, expiresAt: null }) }]);

      const other = await registerAnonymous(deps, { clientName: 'expiring' }, caller());
      const otherKey = await findLiveKey(c().db, sha256Hex(other.credential));
      if (!otherKey) throw new Error('no key');
      const expiring = await createSandboxEndpoint(c(), otherKey.key);
      const swept = await announced(() => sweepOnce(c(), expiring.expiresAt + 1));
      expect(swept).toContainEqual({ slug: expiring.slug, row: null });
    });

    test('a change that is refused announces nothing', async () => {
      const deps = agentDeps(c());
      const reg = await registerAnonymous(deps, { clientName: 'capped' }, caller());
      const found = await findLiveKey(c().db, sha256Hex(reg.credential));
      if (!found) throw new Error('no key');
      for (let i = 0; i < c().config.agent.sandboxMaxEndpoints; i++) await createSandboxEndpoint(c(), found.key);
      let refused: unknown = null;
      const heardNow = await announced(() => createSandboxEndpoint(c(), found.key).catch((e: unknown) => void (refused = e)));
      expect(refused).toBeInstanceOf(AppError);
      expect(heardNow).toEqual([]);
    });
  });
}
