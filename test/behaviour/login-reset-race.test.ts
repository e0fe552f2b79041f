/**
 * A log-in racing a password reset (docs/security.md, "Password reset"): the log-in reads the
 * hash, verifies the password (argon2, slow), then inserts a session. A reset that commits in
 * between ends every session, so the log-in must not leave one behind: its insert is conditional
 * on the hash it verified. Deterministic: the service runs in-process on a real port and a real
 * store (both backends), and the one argon2 verify of the log-in (Bun's, not ours) is wrapped to
 * run a real reset, through the API, before it answers. Both routes that verify a password are
 * covered: POST /api/auth/login and the agent sign-in page's POST /agent/login. On Postgres, a
 * reset still open (uncommitted) when the insert runs is covered too: the insert must wait for it.
 */
import { afterEach, expect, spyOn, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { sessions } from '../../src/stores/state/schema';
import { call } from '../support/client';
import { describeInProcess } from '../support/in-process';
import { AGENT_ENV, signUp, uniqueEmail } from './agent-support';
import { resetLink } from './password-reset-support';

const OLD_PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';

describeInProcess(
  'log-in racing a password reset',
  (h) => {
    let spy: ReturnType<typeof spyOn> | null = null;
    afterEach(() => {
      spy?.mockRestore();
      spy = null;
    });

    /** The next password verify first lets the account's reset (link already mailed) commit, through the API. */
    async function resetDuringNextVerify(email: string): Promise<{ resetStatus: () => number | null }> {
      await call(h.url, 'POST', '/api/auth/password-reset', { body: { email } });
      const { token } = await resetLink(h.server, email);
      const verify = Bun.password.verify.bind(Bun.password);
      let status: number | null = null;
      let armed = true;
      spy = spyOn(Bun.password, 'verify').mockImplementation(async (password, hash, algorithm) => {
        const ok = await verify(password, hash, algorithm);
        if (armed) {
          armed = false;
          status = (await call(h.url, 'POST', '/api/auth/password-reset/confirm', { body: { token, password: NEW_PASSWORD } })).status;
        }
        return ok;
      });
      return { resetStatus: () => status };
    }

    /** Sessions of the account in the real store. */
    const sessionsOf = async (userId: string) =>
      (await h.server.service.ctx.db.select({ n: sql<number>`count(*)::int` }).from(sessions).where(eq(sessions.userId, userId)))[0]?.n;

    test('POST /api/auth/login: the old password verified, then a reset commits: 401, no session left', async () => {
      const human = await signUp(h.url, uniqueEmail('race-api'));
      const race = await resetDuringNextVerify(human.email);
      const r = await call(h.url, 'POST', '/api/auth/login', { body: { email: human.email, password: OLD_PASSWORD } });
      expect(race.resetStatus()).toBe(200);
      expect([r.status, (r.body as { code?: string }).code, (r.body as { error?: string }).error]).toEqual([401, 'unauthorized', 'wrong email or password']);
      expect(r.headers.get('set-cookie')).toBeNull();
      // Only the reset's own session is left; the old one ended with the reset.
      expect((await call(h.url, 'GET', '/api/auth/me', { token: human.session })).status).toBe(401);
      expect(await sessionsOf(human.userId)).toBe(1);
      // Without a race, the new password signs in.
      expect((await call(h.url, 'POST', '/api/auth/login', { body: { email: human.email, password: NEW_PASSWORD } })).status).toBe(200);
    });

    test('POST /agent/login (the agent sign-in page): same, 401 and no session cookie', async () => {
      const human = await signUp(h.url, uniqueEmail('race-page'));
      const race = await resetDuringNextVerify(human.email);
      const r = await fetch(`${h.url}/agent/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: h.url },
        body: new URLSearchParams({ email: human.email, password: OLD_PASSWORD, next: '/agent/claim' }).toString(),
        redirect: 'manual',
      });
      expect(race.resetStatus()).toBe(200);
      expect(r.status).toBe(401);
      expect(await r.text()).toContain('wrong email or password');
      expect(r.headers.get('set-cookie')).toBeNull();
      expect(await sessionsOf(human.userId)).toBe(1);
    });

    if (h.backend === 'server') {
      test('a reset still open when the session is inserted: the insert waits for its commit, then refuses (server backend)', async () => {
        // PGlite runs one transaction at a time, so only Postgres can have a reset open meanwhile.
        const human = await signUp(h.url, uniqueEmail('race-open'));
        const url = h.server.env.DATABASE_URL;
        if (!url) throw new Error('no DATABASE_URL');
        const other = postgres(url, { max: 1, onnotice: () => {} });
        const newHash = await Bun.password.hash(NEW_PASSWORD, { algorithm: 'argon2id' });
        const verify = Bun.password.verify.bind(Bun.password);
        let committed: Promise<unknown> = Promise.resolve();
        try {
          const reserved = await other.reserve();
          spy = spyOn(Bun.password, 'verify').mockImplementation(async (password, hash, algorithm) => {
            const ok = await verify(password, hash, algorithm);
            // What a reset does, in a transaction left open while the log-in goes on to its insert.
            await reserved`BEGIN`;
            await reserved`UPDATE users SET password_hash = ${newHash} WHERE id = ${human.userId}`;
            await reserved`DELETE FROM sessions WHERE user_id = ${human.userId}`;
            committed = Bun.sleep(400).then(() => reserved`COMMIT`);
            return ok;
          });
          const r = await call(h.url, 'POST', '/api/auth/login', { body: { email: human.email, password: OLD_PASSWORD } });
          await committed;
          reserved.release();
          expect([r.status, (r.body as { code?: string }).code]).toEqual([401, 'unauthorized']);
          expect(await sessionsOf(human.userId)).toBe(0);
        } finally {
          await committed.catch(() => {});
          await other.end();
        }
      });
    }
  },
  { ...AGENT_ENV, RATE_LIMIT_RESET_EMAIL: '100000/600' },
);
