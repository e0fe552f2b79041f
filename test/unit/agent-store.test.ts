/**
 * The agent queries and the sweeper against the real state stores: PGlite, and Postgres when the
 * server backend is under test.
 */
import { describe, expect, test } from 'bun:test';
import { randomId, sha256Hex } from '../../src/ids';
import { REGISTRATION_RETENTION_MS, sweepOnce } from '../../src/services/expiry-sweeper';
import { writeEndpoints } from '../../src/services/endpoint-writes';
import * as agent from '../../src/stores/state/agent';
import { insertApiKey, insertUser } from '../../src/stores/state/accounts';
import { findEndpointBySlug, insertEndpoint, listPendingPurges } from '../../src/stores/state/endpoints';
import { BACKENDS } from '../support/backends';
import { useServices } from '../support/services';

for (const backend of BACKENDS) {
  describe(`agent state [${backend}]`, () => {
    const c = useServices(backend, { tmpPrefix: 'hookcap-agent-store-' });

    const key = async (userId: string | null = null) =>
      insertApiKey(c().db, { id: randomId('key'), userId, keyHash: sha256Hex(randomId('raw')), prefix: 'svc_x', name: 'k', scopes: [], createdAt: Date.now() });
    const sandbox = async (keyId: string, expiresAt: number) => {
      const row = await writeEndpoints(c(), (w) => insertEndpoint(w, { id: randomId('ep'), slug: randomId('s', 6), name: 'sb', ownerKeyId: keyId, expiresAt, createdAt: Date.now() }));
      if (!row) throw new Error('insert failed');
      return row;
    };

    test('the sweeper deletes expired sandbox endpoints only, and queues their captures for purging', async () => {
      const now = Date.now();
      const k = await key();
      const expired = await sandbox(k.id, now - 1000);
      const live = await sandbox(k.id, now + 60_000);
      const user = await insertUser(c().db, { id: randomId('usr'), email: `${randomId('u')}@example.com`, plan: 'free', createdAt: now });
      if (!user) throw new Error('user');
      const owned = await writeEndpoints(c(), (w) => insertEndpoint(w, { id: randomId('ep'), slug: randomId('s', 6), name: 'mine', userId: user.id, createdAt: now }));
      await sweepOnce(c(), now);
      expect(await findEndpointBySlug(c().db, expired.slug)).toBeNull();
      expect(await findEndpointBySlug(c().db, live.slug)).not.toBeNull();
      expect(await findEndpointBySlug(c().db, owned?.slug ?? '')).not.toBeNull();
      expect(await listPendingPurges(c().db, 1000)).toContain(expired.id);
    });

    test('adopting moves only live sandbox endpoints of that key into the account', async () => {
      const now = Date.now();
      const k = await key();
      const other = await key();
      const mine = await sandbox(k.id, now + 60_000);
      const theirs = await sandbox(other.id, now + 60_000);
      const user = await insertUser(c().db, { id: randomId('usr'), email: `${randomId('u')}@example.com`, plan: 'free', createdAt: now });
      if (!user) throw new Error('user');
      expect(await writeEndpoints(c(), (w) => agent.adoptSandbox(w, k.id, user.id, now))).toEqual([mine.slug]);
      expect(await findEndpointBySlug(c().db, mine.slug)).toMatchObject({ userId: user.id, ownerKeyId: null, expiresAt: null });
      expect(await findEndpointBySlug(c().db, theirs.slug)).toMatchObject({ userId: null, ownerKeyId: other.id });
    });

    test('registrations are removed once long past their window', async () => {
      const now = Date.now();
      const k = await key();
      const base = { type: 'anonymous' as const, clientName: 'x', keyId: k.id, createdAt: now };
      const old = await agent.insertRegistration(c().db, { ...base, id: crypto.randomUUID(), claimTokenHash: randomId('h'), userCodeHash: randomId('u'), expiresAt: now - REGISTRATION_RETENTION_MS - 1 });
      const recent = await agent.insertRegistration(c().db, { ...base, id: crypto.randomUUID(), claimTokenHash: randomId('h'), userCodeHash: randomId('u'), expiresAt: now - 1000 });
      await sweepOnce(c(), now);
      expect(await agent.findRegistrationByTokenHash(c().db, old?.claimTokenHash ?? '')).toBeNull();
      expect(await agent.findRegistrationByTokenHash(c().db, recent?.claimTokenHash ?? '')).not.toBeNull();
    });

    test('jti first use is atomic and scoped by purpose and issuer', async () => {
      const row = { purpose: 'assertion' as const, iss: 'https://idp.example', jti: randomId('j'), exp: 1, usedAt: Date.now() };
      const results = await Promise.all(Array.from({ length: 8 }, () => agent.recordJti(c().db, row)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await agent.recordJti(c().db, { ...row, purpose: 'logout' })).toBe(true);
      expect(await agent.recordJti(c().db, { ...row, iss: 'https://other.example' })).toBe(true);
    });

    test('the generated server secret is created once and then shared', async () => {
      const a = await agent.getOrCreateSecret(c().db, 'test-secret', 'first', Date.now());
      const b = await agent.getOrCreateSecret(c().db, 'test-secret', 'second', Date.now());
      expect(a).toBe('first');
      expect(b).toBe('first');
    });
  });
}
