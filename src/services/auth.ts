/** Sign-up, log-in, sessions and principal resolution. */
import { AppError } from '../errors';
import { randomId, secretToken, sha256Hex } from '../ids';
import { isWellFormedEmail } from '../model/email';
import { secondsUntil } from '../model/usage';
import * as accounts from '../stores/state/accounts';
import type { Q } from '../stores/state/db';
import type { UserRow } from '../stores/state/schema';
import type { Ctx, Principal } from './context';
import { announceRevoked } from './credential-revocation';
import { consume } from './rate-limiter';
import { mailLinkAfterSignup } from './email-verification';
import { MIN_PASSWORD_LENGTH } from '../model/password';

export interface SessionResult {
  user: { id: string; email: string; emailVerified: boolean };
  token: string;
}

export const publicUser = (u: UserRow) => ({ id: u.id, email: u.email, emailVerified: u.emailVerifiedAt !== null });

/** The one answer to a wrong password, and to a password that changed while it was checked. */
const WRONG_CREDENTIALS = 'wrong email or password';

/**
 * A new browser session for the account (sign-up, log-in, a password reset), inserted only while
 * its password hash is still `user.passwordHash`, the one the caller verified or set: a reset that
 * commits meanwhile (it ends every session) leaves none behind. Then 401, as a wrong password.
 * `q`: an open transaction to insert in (a reset's), or the database.
 */
export async function startSession(ctx: Ctx, user: UserRow, q: Q = ctx.db): Promise<SessionResult> {
  const token = secretToken('ses');
  const now = ctx.clock.now();
  const row = { tokenHash: sha256Hex(token), userId: user.id, createdAt: now, expiresAt: now + ctx.config.sessionTtlMs };
  if (!(await accounts.insertSessionIfPassword(q, row, user.passwordHash))) throw new AppError('unauthorized', WRONG_CREDENTIALS);
  return { user: publicUser(user), token };
}

export async function signup(ctx: Ctx, input: { email: string; password: string }): Promise<SessionResult> {
  const email = input.email.trim();
  if (!isWellFormedEmail(email)) throw new AppError('validation', 'email is not a valid address');
  const passwordHash = await hashNewPassword(input.password);
  const user = await accounts.insertUser(ctx.db, {
    id: randomId('usr'),
    email,
    passwordHash,
    plan: 'free',
    createdAt: ctx.clock.now(),
  });
  if (!user) throw new AppError('conflict', 'an account with this email already exists');
  const session = await startSession(ctx, user);
  // Sign-up proves nothing about the address: the link mailed now does (docs/security.md).
  mailLinkAfterSignup(ctx, user);
  return session;
}


/** Checks a new password against the rules and hashes it (argon2id); 400 validation when too weak. */
export async function hashNewPassword(password: string): Promise<string> {
  if (password.length < MIN_PASSWORD_LENGTH) throw new AppError('validation', `password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  return Bun.password.hash(password, { algorithm: 'argon2id' });
}

export async function login(ctx: Ctx, input: { email: string; password: string }): Promise<SessionResult> {
  const email = input.email.trim();
  await limitAttemptsOn(ctx, email);
  // Postgres cannot compare a NUL; such an address has no account (the log-in page posts forms).
  const user = email.includes('\u0000') ? null : await accounts.findUserByEmail(ctx.db, email);
  // Verify against a dummy hash when the user is unknown, so timing does not reveal accounts.
  const hash = user?.passwordHash ?? DUMMY_HASH;
  const ok = await Bun.password.verify(input.password, hash);
  if (!user || !user.passwordHash || !ok) throw new AppError('unauthorized', WRONG_CREDENTIALS);
  return startSession(ctx, user);
}

/**
 * Log-in attempts per account (RATE_LIMIT_LOGIN_ACCOUNT), on top of the per-address limit: a guess
 * spread over many addresses is still bounded. Counted by the address's hash, known account or
 * not, so the answer does not tell whether it exists. The price: someone who knows an address
 * can make its owner wait out the window (docs/security.md).
 */
export async function limitAttemptsOn(ctx: Ctx, email: string): Promise<void> {
  const rule = ctx.config.rateLimits.loginAccount;
  if (!rule) return;
  const outcome = await consume(ctx, `login-account:${sha256Hex(email.toLowerCase())}`, rule);
  if (outcome.allowed) return;
  const wait = secondsUntil(outcome.resetAt, ctx.clock.now());
  throw new AppError('rate_limited_api', `too many log-in attempts for this account; retry in ${wait} s`, { 'retry-after': String(wait) });
}

const DUMMY_HASH = await Bun.password.hash('dummy-password-for-timing', { algorithm: 'argon2id' });

/** Ends the browser session; live streams it opened end too, on every node. */
export async function logout(ctx: Ctx, principal: Principal): Promise<void> {
  if (principal.kind !== 'session') return;
  await accounts.deleteSession(ctx.db, principal.tokenHash);
  announceRevoked(ctx.bus, [principal.user.id]);
}

/** Resolves a bearer token (svc_ key or ses_ session) to a principal; null when unknown. */
export async function resolveToken(ctx: Ctx, token: string): Promise<Principal | null> {
  const hash = sha256Hex(token);
  if (token.startsWith('ses_')) {
    const found = await accounts.findSession(ctx.db, hash, ctx.clock.now());
    return found ? { kind: 'session', user: found.user, tokenHash: hash, expiresAt: found.expiresAt } : null;
  }
  if (token.startsWith('svc_')) {
    const found = await accounts.findLiveKey(ctx.db, hash);
    if (!found) return null;
    return found.user ? { kind: 'key', user: found.user, key: found.key } : { kind: 'agent', key: found.key };
  }
  return null;
}

/** The account behind a principal; unclaimed agent keys are refused (SPEC 3.2). */
export function requireAccount(p: Principal): UserRow {
  if (p.kind === 'agent') {
    // Names the sandbox's real route and how the key gets claimed: an agent meets this first.
    throw new AppError(
      'forbidden',
      'this agent key is not claimed yet: until a person claims it (show them your claim_url, or the user_code to type at /agent/claim, and poll POST /api/agent/auth/poll) it may only use the sandbox, /api/agent/sandbox/endpoints',
    );
  }
  return p.user;
}

/** Routes of SPEC 4.7: a browser session only, never an API key. */
export function requireSession(p: Principal): UserRow {
  if (p.kind !== 'session') throw new AppError('forbidden', 'this route needs a browser session, not an API key');
  return p.user;
}
