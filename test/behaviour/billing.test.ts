import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { call, newAccount } from '../support/client';
import { startServer, stopServer, type TestServer } from '../support/server';
import { describeBackends } from '../support/suite';
import {
  createTeam,
  nowSeconds,
  postStripe,
  STRIPE_SECRET,
  stripeSignature,
  subscriptionEvent,
  TEAMS_ENV,
  type Account,
  type Team,
} from './teams-support';
import type { Health } from '../../src/health';

const ROOT = join(import.meta.dir, '..', '..');

interface Sub {
  status: string;
  active: boolean;
  seats: number;
}

describeBackends(
  'Teams subscription billing (SPEC 4.5, 8)',
  (h) => {
    const subscription = async (base: string, token: string, team: Team): Promise<Sub> =>
      (await call(base, 'GET', `/api/teams/${team.id}`, { token })).body.subscription;
    const canInvite = async (base: string, owner: Account, team: Team) =>
      (await call(base, 'POST', `/api/teams/${team.id}/invite`, { token: owner.key, body: { email: `x${Math.random().toString(36).slice(2)}@example.com` } })).status;

    async function ownerWithTeam(): Promise<{ owner: Account; team: Team }> {
      const owner = await newAccount(h.url);
      return { owner, team: await createTeam(h.url, owner.key, 'Billing') };
    }

    describe('Stripe webhook: signature', () => {
      test('a correctly signed customer.subscription.created activates the team with seats = quantity', async () => {
        const { owner, team } = await ownerWithTeam();
        expect(await subscription(h.url, owner.key, team)).toMatchObject({ status: 'none', active: false, seats: 0 });
        expect(await canInvite(h.url, owner, team)).toBe(402);
        const payload = subscriptionEvent({ teamId: team.id, seats: 4 });
        const r = await postStripe(h.url, payload, stripeSignature(payload));
        expect(r.status).toBe(200);
        expect(r.body).toEqual({ received: true, applied: true });
        expect(await subscription(h.url, owner.key, team)).toMatchObject({ status: 'active', active: true, seats: 4 });
        expect(await canInvite(h.url, owner, team)).toBe(201);
      });

      test('wrongly signed, tampered, unsigned, malformed or stale deliveries are refused with 400 and change nothing', async () => {
        const { owner, team } = await ownerWithTeam();
        const payload = subscriptionEvent({ teamId: team.id, seats: 50 });
        const t = nowSeconds();
        const good = stripeSignature(payload, STRIPE_SECRET, t);
        const v1 = good.split('v1=')[1] ?? '';
        // The stale and future timestamps are taken when their request is sent, a margin past the
        // 300 s tolerance: `t` is whole seconds and the server reads its clock a moment later, so
        // t + 301 made before the other requests (a loaded machine) could land inside it.
        const cases: [string, string, () => string | null][] = [
          ['wrong secret', payload, () => stripeSignature(payload, 'whsec_someone_else')],
          ['tampered body', payload.replace('"quantity":50', '"quantity":99'), () => good],
          ['no header', payload, () => null],
          ['malformed header', payload, () => 'v1=abc'],
          ['not hex', payload, () => `t=${t},v1=zz${v1.slice(2)}`],
          ['signature of another timestamp', payload, () => `t=${t + 1},v1=${v1}`],
          ['older than the tolerance', payload, () => stripeSignature(payload, STRIPE_SECRET, nowSeconds() - 301)],
          ['too far in the future', payload, () => stripeSignature(payload, STRIPE_SECRET, nowSeconds() + 310)],
        ];
        for (const [label, body, sig] of cases) {
          const r = await postStripe(h.url, body, sig());
          expect({ label, status: r.status }).toEqual({ label, status: 400 });
          expect(typeof r.body.error).toBe('string');
        }
        expect(await subscription(h.url, owner.key, team)).toMatchObject({ status: 'none', active: false });
        // The same event, correctly signed, still applies: none of the refusals consumed its id.
        const ok = await postStripe(h.url, payload, good);
        expect(ok.body.applied).toBe(true);
        expect(await subscription(h.url, owner.key, team)).toMatchObject({ active: true, seats: 50 });
      });

      test('several v1 signatures (secret rotation): one valid is enough', async () => {
        const { owner, team } = await ownerWithTeam();
        const payload = subscriptionEvent({ teamId: team.id, seats: 2 });
        const t = nowSeconds();
        const valid = stripeSignature(payload, STRIPE_SECRET, t).split('v1=')[1];
        const old = stripeSignature(payload, 'whsec_old_secret', t).split('v1=')[1];
        const r = await postStripe(h.url, payload, `t=${t},v1=${old},v1=${valid}`);
        expect(r.status).toBe(200);
        expect(await subscription(h.url, owner.key, team)).toMatchObject({ active: true, seats: 2 });
      });

      test('a signed body that is not a Stripe event is a 400', async () => {
        for (const body of ['not json', '[]', '{"id":"evt_x","type":"customer.subscription.created","created":1}', '{"type":"x"}']) {
          const r = await postStripe(h.url, body, stripeSignature(body));
          expect(r.status).toBe(400);
          expect(r.body.error).toContain('Stripe event');
        }
      });

      test('the signing secret never appears in any response', async () => {
        const { owner, team } = await ownerWithTeam();
        const payload = subscriptionEvent({ teamId: team.id });
        const replies = [
          await postStripe(h.url, payload, stripeSignature(payload)),
          await postStripe(h.url, payload, stripeSignature(payload, 'whsec_wrong')),
          await postStripe(h.url, 'x', stripeSignature('x')),
          await call(h.url, 'GET', `/api/teams/${team.id}`, { token: owner.key }),
          await call<Health>(h.url, 'GET', '/healthz'),
          await call(h.url, 'GET', '/docs/json'),
        ];
        for (const r of replies) expect(r.text).not.toContain(STRIPE_SECRET);
      });
    });

    describe('Stripe webhook: events', () => {
      test('updated changes seats and status; deleted cancels; inviting follows', async () => {
        const { owner, team } = await ownerWithTeam();
        const send = async (o: Parameters<typeof subscriptionEvent>[0]) => {
          const p = subscriptionEvent(o);
          return (await postStripe(h.url, p, stripeSignature(p))).body;
        };
        const t0 = nowSeconds();
        await send({ teamId: team.id, seats: 1, created: t0 - 10 });
        // One seat: the owner's. Nobody can be invited.
        expect(await canInvite(h.url, owner, team)).toBe(402);
        expect(await send({ teamId: team.id, type: 'customer.subscription.updated', seats: 3, created: t0 - 5, quantityOnItems: true })).toMatchObject({ applied: true });
        expect(await subscription(h.url, owner.key, team)).toMatchObject({ status: 'active', seats: 3 });
        expect(await canInvite(h.url, owner, team)).toBe(201);
        expect(await send({ teamId: team.id, type: 'customer.subscription.deleted', status: 'canceled', seats: 3, created: t0 })).toMatchObject({ applied: true });
        expect(await subscription(h.url, owner.key, team)).toMatchObject({ status: 'canceled', active: false });
        expect(await canInvite(h.url, owner, team)).toBe(402);
      });

      test('each event id applies once: a redelivery is acknowledged and changes nothing', async () => {
        const { owner, team } = await ownerWithTeam();
        const created = subscriptionEvent({ teamId: team.id, seats: 2, eventId: `evt_once_${team.id}`, created: nowSeconds() - 10 });
        expect((await postStripe(h.url, created, stripeSignature(created))).body.applied).toBe(true);
        const upd = subscriptionEvent({ teamId: team.id, type: 'customer.subscription.updated', seats: 7 });
        expect((await postStripe(h.url, upd, stripeSignature(upd))).body.applied).toBe(true);
        const again = await postStripe(h.url, created, stripeSignature(created));
        expect(again.status).toBe(200);
        expect(again.body).toEqual({ received: true, applied: false, reason: 'event already processed' });
        expect(await subscription(h.url, owner.key, team)).toMatchObject({ seats: 7 });
      });

      test('a late event older than the applied one does not roll the state back', async () => {
        const { owner, team } = await ownerWithTeam();
        const t = nowSeconds();
        const newer = subscriptionEvent({ teamId: team.id, type: 'customer.subscription.deleted', status: 'canceled', created: t });
        const older = subscriptionEvent({ teamId: team.id, type: 'customer.subscription.updated', status: 'active', seats: 9, created: t - 60 });
        expect((await postStripe(h.url, newer, stripeSignature(newer))).body.applied).toBe(true);
        const late = await postStripe(h.url, older, stripeSignature(older));
        expect(late.status).toBe(200);
        expect(late.body.applied).toBe(false);
        expect(await subscription(h.url, owner.key, team)).toMatchObject({ status: 'canceled', active: false });
      });

      test('an update of another subscription than the team\'s current one is ignored', async () => {
        const { owner, team } = await ownerWithTeam();
        const cur = subscriptionEvent({ teamId: team.id, subscriptionId: 'sub_current', seats: 3, created: nowSeconds() - 5 });
        await postStripe(h.url, cur, stripeSignature(cur));
        const stale = subscriptionEvent({ teamId: team.id, subscriptionId: 'sub_previous', type: 'customer.subscription.deleted', status: 'canceled' });
        const r = await postStripe(h.url, stale, stripeSignature(stale));
        expect(r.body.applied).toBe(false);
        expect(await subscription(h.url, owner.key, team)).toMatchObject({ status: 'active', seats: 3 });
      });

      test('events without a team, for an unknown team, or of other types are acknowledged and ignored', async () => {
        for (const payload of [
          subscriptionEvent({ teamId: null }),
          subscriptionEvent({ teamId: 'team_doesnotexist' }),
          JSON.stringify({ id: `evt_inv_${Date.now()}`, type: 'invoice.paid', created: nowSeconds(), data: { object: { id: 'in_1' } } }),
        ]) {
          const r = await postStripe(h.url, payload, stripeSignature(payload));
          expect(r.status).toBe(200);
          expect(r.body.applied).toBe(false);
          expect(typeof r.body.reason).toBe('string');
        }
      });

      test('an account cannot activate its team without Stripe\'s signature, nor see another team\'s subscription', async () => {
        const { owner, team } = await ownerWithTeam();
        const other = await newAccount(h.url);
        const payload = subscriptionEvent({ teamId: team.id, seats: 100 });
        // Signed with a guess, with the account's own key, or not at all.
        for (const sig of [stripeSignature(payload, owner.key), stripeSignature(payload, ''), `t=${nowSeconds()},v1=${'0'.repeat(64)}`]) {
          expect((await postStripe(h.url, payload, sig)).status).toBe(400);
        }
        const withBearer = await call(h.url, 'POST', '/api/billing/stripe/webhook', { token: owner.key, raw: payload, headers: { 'content-type': 'application/json' } });
        expect(withBearer.status).toBe(400);
        expect(await subscription(h.url, owner.key, team)).toMatchObject({ active: false });
        expect((await call(h.url, 'GET', `/api/teams/${team.id}`, { token: other.key })).status).toBe(404);
      });
    });

    describe('without STRIPE_WEBHOOK_SECRET', () => {
      let bare: TestServer | undefined;
      beforeAll(async () => {
        bare = await startServer({ env: { ...h.provisioned.env } });
      });
      afterAll(async () => {
        if (bare) await stopServer(bare);
      });

      test('the webhook route answers 404 with a clear error and applies nothing', async () => {
        const url = bare?.url ?? '';
        const payload = subscriptionEvent({ teamId: 'team_x' });
        const r = await postStripe(url, payload, stripeSignature(payload));
        expect(r.status).toBe(404);
        expect(r.body.error).toContain('STRIPE_WEBHOOK_SECRET');
      });
    });

    describe('admin command (operators without Stripe)', () => {
      // Its own server, so the embedded run can stop it: PGlite is one process at a time.
      let node: TestServer | undefined;
      // The stop, commands and restart under way (embedded). A test that times out leaves its
      // cycle running: the next test and afterAll wait for it, so neither finds DATA_DIR locked by
      // the restart it left nor stops a server object that is already gone.
      let cycle: Promise<unknown> = Promise.resolve();
      beforeAll(async () => {
        node = await startServer({ env: { ...h.provisioned.env, ...TEAMS_ENV } });
      });
      beforeEach(async () => {
        await cycle.catch(() => {});
      });
      afterAll(async () => {
        await cycle.catch(() => {});
        if (node) await stopServer(node);
      });

      async function admin(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
        const env = node?.env ?? {};
        const proc = Bun.spawn([process.execPath, join(ROOT, 'scripts', 'admin.ts'), ...args], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' });
        const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
        return { code, stdout, stderr };
      }

      /**
       * Runs the commands one after another as an operator would: embedded, with the service
       * stopped once for all of them (each stop and restart of PGlite takes tens of seconds on a
       * loaded CI machine), then started again on the same data dir.
       */
      async function adminAround(...commands: string[][]) {
        const run = async () => {
          const results = [];
          for (const args of commands) results.push(await admin(args));
          return results;
        };
        const current = node;
        if (h.backend === 'server' || !current) return run();
        const started = (async () => {
          await stopServer(current, { keepData: true });
          try {
            return await run();
          } finally {
            node = await startServer({ env: current.env, dataDir: current.dataDir, port: current.port });
          }
        })();
        cycle = started;
        return started;
      }

      test('set-subscription activates and cancels a team; show-subscription reads it back', async () => {
        const base = () => node?.url ?? '';
        const owner = await newAccount(base());
        const team = await createTeam(base(), owner.key, 'Operator');
        expect(await canInvite(base(), owner, team)).toBe(402);

        const [set] = await adminAround(['set-subscription', '--team', team.id, '--seats', '3', '--status', 'active']);
        expect(set?.code).toBe(0);
        expect(JSON.parse(set?.stdout ?? '')).toMatchObject({ teamId: team.id, status: 'active', active: true, seats: 3, source: 'admin' });
        expect(await subscription(base(), owner.key, team)).toMatchObject({ status: 'active', active: true, seats: 3 });
        expect(await canInvite(base(), owner, team)).toBe(201);
        expect(await canInvite(base(), owner, team)).toBe(201);
        expect(await canInvite(base(), owner, team)).toBe(402);

        // Read back, then cancelled, in one stop of the service.
        const [shown, cancel] = await adminAround(['show-subscription', '--team', team.id], ['set-subscription', '--team', team.id, '--seats', '3', '--status', 'canceled']);
        expect(shown?.code).toBe(0);
        expect(JSON.parse(shown?.stdout ?? '')).toMatchObject({ teamId: team.id, status: 'active', seats: 3 });
        expect(cancel?.code).toBe(0);
        expect(await subscription(base(), owner.key, team)).toMatchObject({ status: 'canceled', active: false });
        expect(await canInvite(base(), owner, team)).toBe(402);
        // Embedded: two stops and starts of PGlite, each with the command's own open of it.
      }, 240_000);

      test('bad arguments and unknown teams exit 1 with a message and change nothing', async () => {
        const base = () => node?.url ?? '';
        const owner = await newAccount(base());
        const team = await createTeam(base(), owner.key, 'Operator 2');
        const commands = [
          [],
          ['frobnicate', '--team', team.id],
          ['set-subscription', '--seats', '2', '--status', 'active'],
          ['set-subscription', '--team', team.id, '--seats', 'many', '--status', 'active'],
          ['set-subscription', '--team', team.id, '--seats', '-1', '--status', 'active'],
          ['set-subscription', '--team', team.id, '--seats', '2', '--status', 'gold'],
          ['set-subscription', '--team', 'team_nope', '--seats', '2', '--status', 'active'],
        ];
        const results = await adminAround(...commands);
        commands.forEach((args, i) => {
          expect({ args, code: results[i]?.code }).toEqual({ args, code: 1 });
          expect(results[i]?.stderr).toContain('admin:');
        });
        expect(await subscription(base(), owner.key, team)).toMatchObject({ status: 'none', active: false });
        // Embedded: one stop and start of PGlite, with seven commands between (several open it).
      }, 240_000);

      // Only the embedded backend has a single-process database to protect.
      if (h.backend === 'embedded') {
        test('embedded: refuses while the service runs on the same data dir', async () => {
          const r = await admin(['show-subscription', '--team', 'team_any']);
          expect(r.code).toBe(1);
          expect(r.stderr).toContain('stop it first');
        });
      }
    });
  },
  TEAMS_ENV,
);
