/**
 * `POST /api/agent/auth`, the three registration flows of SPEC 4.8: anonymous (an unowned key and
 * a claim ceremony), verified email (a code by mail, the key after verify-otp) and identity
 * assertion (an ID-JAG verified against its issuer, the key at once).
 */
import { verifyIdJag } from '../../auth/agent/assertion';
import { generateClaimToken, generateOtp, hashOtp, hashUserCode, normalizeUserCode, userCodeForClaimToken } from '../../auth/agent/codes';
import { assertFirstUse } from '../../auth/agent/replay';
import { AppError } from '../../errors';
import { countPendingAnonymous, deleteRegistration, inTransaction, insertCredential, insertRegistration, lockPendingAnonymous } from '../../stores/state/agent';
import type { AgentDeps } from './deps';
import { issueAccountKey, issueUnownedKey } from '../api-keys';
import { agentKeyName, POST_CLAIM_SCOPES } from './keys';
import { accountOfProvenAddress, announceRecovery } from '../address-proof';
import { claimPageUrl, isoTime, verifyOtpUrl } from './present';
import { buckets, type RateMeter } from './rate-meter';
import { pgJtiStore } from './replay-store';
import { errorMessage } from '../../unknown';
import { findUserByEmail } from '../../stores/state/accounts';
import type { UserRow } from '../../stores/state/schema';
import { paths } from '../../../web/src/paths';

export interface Caller {
  /** Client address, the key of per-address rate limits. */
  ip: string;
  meter: RateMeter;
}

/** Raised inside a transaction when a fresh token or code collided; the whole attempt is redone. */
class Collision extends Error {}
const MAX_ATTEMPTS = 5;

export async function registerAnonymous(deps: AgentDeps, input: { clientName: string }, caller: Caller) {
  const { ctx } = deps;
  await caller.meter.consume(buckets.registerIp(caller.ip), ctx.config.agent.ratePerIp);
  const now = ctx.clock.now();
  const secret = await deps.secret();
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const claim = generateClaimToken();
    const userCode = userCodeForClaimToken(claim.token, secret);
    const expiresAt = now + ctx.config.agent.claimTtlMs;
    const registrationId = crypto.randomUUID();
    try {
      const key = await inTransaction(ctx.db, async (tx) => {
        // Count and insert under one lock: a separate count lets a burst overshoot the cap.
        await lockPendingAnonymous(tx);
        if ((await countPendingAnonymous(tx, now)) >= ctx.config.agent.maxPending) {
          throw new AppError('temporarily_unavailable', 'too many anonymous registrations are waiting to be claimed; retry later', {
            'retry-after': '60',
          });
        }
        const issued = await issueUnownedKey(tx, agentKeyName(input.clientName), now);
        const row = await insertRegistration(tx, {
          id: registrationId,
          type: 'anonymous',
          clientName: input.clientName,
          claimTokenHash: claim.hash,
          userCodeHash: hashUserCode(normalizeUserCode(userCode) ?? '', secret),
          keyId: issued.row.id,
          createdAt: now,
          expiresAt,
        });
        if (!row) throw new Collision();
        return issued;
      });
      return {
        registration_id: registrationId,
        registration_type: 'anonymous' as const,
        credential_type: 'api_key' as const,
        credential: key.raw,
        credential_expires: null,
        scopes: key.row.scopes,
        claim_url: claimPageUrl(ctx.config.baseUrl, claim.token),
        claim_token: claim.token,
        user_code: userCode,
        claim_token_expires: isoTime(expiresAt),
        post_claim_scopes: [...POST_CLAIM_SCOPES],
      };
    } catch (e) {
      if (!(e instanceof Collision)) throw e;
    }
  }
  throw new AppError('internal', 'could not allocate a unique user code');
}

export async function registerVerifiedEmail(deps: AgentDeps, input: { clientName: string; email: string }, caller: Caller) {
  const { ctx } = deps;
  await caller.meter.consume(buckets.registerIp(caller.ip), ctx.config.agent.ratePerIp);
  await caller.meter.consume(buckets.registerEmail(input.email), ctx.config.agent.ratePerEmail);
  const secret = await deps.secret();
  const now = ctx.clock.now();
  const expiresAt = now + ctx.config.agent.otpTtlMs;
  const registrationId = crypto.randomUUID();
  const otp = generateOtp();
  const claim = generateClaimToken();
  const row = await insertRegistration(ctx.db, {
    id: registrationId,
    type: 'verified_email',
    clientName: input.clientName,
    claimTokenHash: claim.hash,
    email: input.email,
    otpHash: hashOtp(otp, secret, registrationId),
    createdAt: now,
    expiresAt,
  });
  if (!row) throw new AppError('internal', 'could not store the registration');
  const minutes = Math.round(ctx.config.agent.otpTtlMs / 60_000);
  // Sign-up does not prove addresses: the account with a password for this address may be someone
  // else's. Using the code proves the mailbox, which takes such an account back (its password,
  // sessions and keys go: services/address-proof.ts); the mailbox's owner is told so before using
  // it. Only in the mail: the answer to the agent is the same either way.
  const existing = await findUserByEmail(ctx.db, input.email);
  const accountLines = existing ? accountNote(existing, ctx.config.baseUrl) : [];
  try {
    await deps.mailer.sendMail({
      to: input.email,
      subject: 'Your hookcap verification code',
      text: [
        `An AI agent calling itself "${input.clientName}" asked for a hookcap API key for this address.`,
        '',
        `Your one-time code: ${otp}`,
        '',
        `It expires in ${minutes} minutes and works once. If you did not ask for this, ignore this message:`,
        'no key is issued without the code.',
        ...accountLines,
      ].join('\n'),
    });
  } catch (e) {
    // Without the mail the registration can never complete: remove it rather than leave it half-done.
    await deleteRegistration(ctx.db, registrationId);
    // Logged once, by the error handler's 503 line: these fields say why. The address's domain
    // points at a mail host that refuses without putting the person's address in the log.
    throw new AppError('temporarily_unavailable', 'the one-time code could not be sent; retry later', { 'retry-after': '30' }).withLogFields({
      mailer: deps.mailer.kind,
      mailError: errorMessage(e),
      recipientDomain: input.email.slice(input.email.lastIndexOf('@') + 1),
    });
  }
  return {
    registration_id: registrationId,
    registration_type: 'email-verification' as const,
    claim_url: verifyOtpUrl(ctx.config.baseUrl),
    claim_token: claim.token,
    claim_token_expires: isoTime(expiresAt),
    post_claim_scopes: [...POST_CLAIM_SCOPES],
  };
}

/**
 * Flow 3: verify the assertion, then in one transaction spend its jti, find or provision the
 * account of its verified email and issue the key. A refusal (too_many_keys) rolls the jti back
 * too, so the same assertion may be retried once the account has room.
 */
export async function registerWithAssertion(deps: AgentDeps, assertion: string, caller: Caller) {
  const { ctx } = deps;
  await caller.meter.consume(buckets.registerIp(caller.ip), ctx.config.agent.ratePerIp);
  const who = await verifyIdJag(assertion, { providers: deps.providers, audience: deps.audience, keys: deps.keys, now: () => ctx.clock.now() });
  await caller.meter.consume(buckets.registerEmail(who.email), ctx.config.agent.ratePerEmail);
  const { key, user, recovery, existed } = await inTransaction(ctx.db, async (tx) => {
    await assertFirstUse(pgJtiStore(tx, ctx.clock), 'assertion', who);
    const existed = (await findUserByEmail(tx, who.email)) !== null;
    // The issuer's email_verified proves the mailbox: an unproven account with a password is
    // recovered before the key is issued, so the agent's key is not among those it revokes.
    const { user, recovery } = await accountOfProvenAddress(tx, who.email, ctx.clock.now());
    const issued = await issueAccountKey(tx, user.id, agentKeyName(who.clientId ?? who.iss), ctx.clock.now(), POST_CLAIM_SCOPES);
    await insertCredential(tx, { keyId: issued.row.id, iss: who.iss, sub: who.sub, clientId: who.clientId ?? null, createdAt: ctx.clock.now() });
    return { key: issued, user, recovery, existed };
  });
  const agent = who.clientId ?? who.iss;
  if (recovery) announceRecovery(ctx, user, recovery, `the identity provider ${who.iss}, on behalf of the AI agent "${agent}"`);
  else if (existed && user.passwordHash !== null) noticeKeyOnAccount(deps, user, agent, who.iss);
  return { credential_type: 'api_key' as const, credential: key.raw, credential_expires: null, scopes: key.row.scopes };
}

/**
 * What the code mail says about the account the key will join. An account whose address was never
 * proven but has a password was signed up by someone who may not own this mailbox: using the code
 * takes it back (src/services/address-proof.ts), and the mail says so before the code is used.
 */
function accountNote(existing: UserRow, baseUrl: string): string[] {
  const created = new Date(existing.createdAt).toISOString().slice(0, 10);
  if (existing.emailVerifiedAt === null && existing.passwordHash !== null) {
    return [
      '',
      `This address has a hookcap account with a password (created ${created}), but its address was never proven: whoever signed it up may not own this mailbox.`,
      'Using this code proves that you do, and makes the account yours: its password is removed, its browser sessions are signed out and its API keys are revoked; the agent\'s key is then the account\'s only key.',
      `To sign in to the dashboard afterwards, set a password of your own at ${baseUrl}${paths.forgotPassword}`,
    ];
  }
  return ['', `The key will belong to your hookcap account for this address (created ${created}); you can see and delete it under Account.`];
}

/**
 * An identity assertion gave an agent a key to an existing account with a proven address and a
 * password: its owner is told after the fact (a recovery sends its own notice instead). Sent after
 * the answer's transaction; a failure is logged, never the agent's problem.
 */
function noticeKeyOnAccount(deps: AgentDeps, user: UserRow, agent: string, issuer: string): void {
  const { ctx } = deps;
  ctx.background.run(`could not send the agent key notice (${deps.mailer.kind})`, () =>
    deps.mailer.sendMail({
      to: user.email,
      subject: 'An AI agent was given a key to your hookcap account',
      text: [
        `An AI agent ("${agent}") was given a hookcap API key for this address, on the word of the identity provider ${issuer}.`,
        '',
        `The key belongs to your hookcap account for this address (created ${new Date(user.createdAt).toISOString().slice(0, 10)}).`,
        `You can see and delete it under Account: ${ctx.config.baseUrl}${paths.account}`,
      ].join('\n'),
    }),
  );
}
