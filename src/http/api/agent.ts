/**
 * Agent registration (SPEC 4.8) and the sandbox (SPEC 4.9). Bodies are read raw (`rawText`)
 * and checked by hand, so every refusal is a SPEC 7.2 code `{error, error_description}`; an
 * identity assertion arrives as `application/jwt` and a logout token as `application/logout+jwt`.
 */
import { Elysia, type Static } from 'elysia';
import { AppError } from '../../errors';
import { requireSession } from '../../services/auth';
import { confirmClaim, denyClaim, pollRegistration } from '../../services/agent/claim';
import { agentDeps } from '../../services/agent/deps';
import { claimTokenOf, otpOf, parseClaimRef, parseJsonObject, parseRegisterJson, type ClaimRef } from '../../services/agent/input';
import type { UserRow } from '../../stores/state/schema';
import { verifyOtp } from '../../services/agent/otp';
import { RateMeter } from '../../services/agent/rate-meter';
import { registerAnonymous, registerVerifiedEmail, registerWithAssertion } from '../../services/agent/register';
import { revokeBySubject } from '../../services/agent/revoke';
import { createSandboxEndpoint, listSandboxEndpoints, requireUnclaimedKey, sandboxRequests } from '../../services/agent/sandbox';
import type { Ctx } from '../../services/context';
import { authenticate, authMacro, bearerChallenge, presentedToken, type CookieJar } from '../auth';
import { errorResponse } from '../errors';
import { mediaTypeOf } from '../origin';
import { clientIp } from '../client-ip';
import {
  AgentRegistration,
  ClaimResult,
  ConfirmRequestDoc,
  DenyResult,
  PollRequestDoc,
  RegisterRequestDoc,
  RevokeRequestDoc,
  SandboxQueryDoc,
  VerifyOtpRequestDoc,
  IssuedKey,
  RegistrationStatus,
  RevokeResult,
  SandboxEndpoint,
  SandboxListing,
} from './agent-models';
import { codedErrors, documented } from './models';
import { pathnameOf, shortPath } from '../request-path';
import { parseLimit } from '../../services/search-params';

/** Far above any real body here (assertions are capped at 16 KiB by the verifier). */
const MAX_AGENT_BODY = 64 * 1024;

/**
 * Route-level parser: the body as text, whatever its type. (`parse: 'none'` stops working once a
 * parse hook is in scope, as the API rate limiter's is.)
 */
export const rawText = ({ request }: { request: Request }): Promise<string> => request.text();

function bodyText(body: unknown): string {
  const text = typeof body === 'string' ? body : '';
  if (text.length > MAX_AGENT_BODY) throw new AppError('invalid_request', 'body is too large');
  return text;
}

function jsonBody(request: Request, body: unknown): Record<string, unknown> {
  const type = mediaTypeOf(request);
  if (type !== 'application/json' && type !== '') throw new AppError('invalid_request', 'send a JSON body (Content-Type: application/json)');
  return parseJsonObject(bodyText(body));
}

/** Endpoint settings the sandbox does not offer (SPEC 4.9 rule 2). */
const SANDBOX_REFUSED = ['mockResponse', 'notificationUrl', 'signing'] as const;

/**
 * The sandbox create takes no settings: an empty body or `{}`. Anything else is refused before a
 * slot of the key is used, rather than ignored: an agent must not believe its mock response,
 * name or expiry is in place (`{"expiresIn": 60}` would have lived the sandbox's whole lifetime).
 */
function refuseSandboxBody(request: Request, body: unknown): void {
  const text = bodyText(body);
  if (text.trim() === '') return;
  const json = jsonBody(request, text);
  const asked = SANDBOX_REFUSED.filter((k) => json[k] !== undefined && json[k] !== null);
  if (asked.length > 0) {
    throw new AppError('invalid_request', `sandbox endpoints have no ${asked.join(', ')}: those need a claimed key (then POST /api/endpoints); create a sandbox endpoint with no body`);
  }
  const other = Object.keys(json).find((k) => !(SANDBOX_REFUSED as readonly string[]).includes(k));
  if (other !== undefined) {
    throw new AppError('invalid_request', `${other}: is not a field of this request: a sandbox endpoint takes no settings (its name and expiry are set for it; it ends at its expiresAt); send no body`);
  }
}

/** A JWT in compact form (a JSON header starts `eyJ`). */
const COMPACT_JWS = /^\s*eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\s*$/;

/**
 * `GET` on a POST-only agent route (an agent or a person opening the email flow's claim_url, which
 * is the verify-otp route): 405 with Allow and what to send, not a bare 404.
 */
const postOnly = (what: string) => () =>
  new Response(JSON.stringify({ error: 'invalid_request', error_description: `use POST: ${what}` }), {
    status: 405,
    headers: { 'content-type': 'application/json', allow: 'POST', ...NO_STORE },
  });
const HIDDEN = { detail: { hide: true } };

/** Where an agent that guessed a route starts instead. */
const AGENT_START =
  'agents register at POST /api/agent/auth; every agent route is named in /.well-known/oauth-authorization-server and /llms.txt';


/** How a sandbox endpoint ends, for an agent trying to delete or change one. */
const SANDBOX_ENDS =
  'sandbox endpoints cannot be deleted or changed: each ends by itself at its expiresAt, and when a person claims the key they become endpoints of the account (then DELETE /api/endpoints/{slug})';

/**
 * Any other method on the sandbox collection (an agent cleaning up): 405 with Allow and how a
 * sandbox endpoint ends, not a bare 404 that reads as "no such endpoint".
 */
const sandboxMethod = () =>
  new Response(
    JSON.stringify({
      error: 'invalid_request',
      error_description: `use GET (this key's sandbox endpoints; ?slug=<slug> for one's captured requests) or POST (create one); ${SANDBOX_ENDS}`,
    }),
    { status: 405, headers: { 'content-type': 'application/json', allow: 'GET, POST', ...NO_STORE } },
  );

/** `/sandbox/endpoints/<slug>`, the path a REST habit guesses: there is none; say where things are. */
const sandboxItem = () =>
  errorResponse(
    new AppError('not_found', `no route here: a sandbox endpoint's captured requests are at GET /api/agent/sandbox/endpoints?slug=<slug>; ${SANDBOX_ENDS}`),
  );

/** What an agent that called claim confirm itself should do instead. */
const PERSON_CONFIRMS =
  'a signed-in person confirms (or denies) the claim; an agent shows that person its claim_url (or the user_code to type at /agent/claim) and polls /api/agent/auth/poll';

/** Responses carrying credentials or codes are never cached (RFC 6749 §5.1). */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/**
 * Runs a rate-limited verb: its X-RateLimit-* headers go on the answer, success or error (SPEC 8).
 */
async function metered<T>(meter: RateMeter, set: { headers: Record<string, string | number> }, run: () => Promise<T>): Promise<T> {
  try {
    const out = await run();
    Object.assign(set.headers, meter.headers());
    return out;
  } catch (e) {
    if (e instanceof AppError) throw new AppError(e.code, e.message, { ...meter.headers(), ...NO_STORE, ...e.headers }, e.limit).withLogFields(e.logFields);
    throw e;
  }
}

/**
 * Logout-token receivers answer every refusal with 400 and no-store (OIDC Back-Channel Logout
 * §2.8), keeping the SPEC 7.2 code in the body; only "our issuer's keys are unreachable" stays 503
 * so the provider retries.
 */
function logoutFailure(e: unknown): Response {
  // The 503 goes through the one error path, which logs it for the operator (issuer keys down).
  if (!(e instanceof AppError) || e.code === 'temporarily_unavailable') return errorResponse(e);
  return new Response(JSON.stringify(e.toJSON()), {
    status: 400,
    headers: { 'content-type': 'application/json', ...NO_STORE, ...e.headers },
  });
}

export const agentRoutes = (ctx: Ctx) => {
  const deps = agentDeps(ctx);
  type Server = Parameters<typeof clientIp>[1];
  type Caller = { ip: string; meter: RateMeter };

  /**
   * Confirm and deny: a browser session decides on a registration named by {claim_token} or
   * {user_code}. Authenticated here, not by the macro: its refusals carry the meter's headers and
   * no-store like every other answer of these verbs. The body is raw text, so no schema runs first.
   */
  async function sessionClaimVerb<T>(
    request: Request,
    cookie: CookieJar,
    body: unknown,
    server: Server,
    set: { headers: Record<string, string | number> },
    run: (user: UserRow, ref: ClaimRef, caller: Caller) => Promise<T>,
  ): Promise<T> {
    const meter = new RateMeter(ctx);
    Object.assign(set.headers, NO_STORE);
    return metered(meter, set, async () => {
      // Agents call this by mistake, keyless or with their own key: say who decides instead.
      if (!presentedToken(request, cookie)) throw new AppError('unauthorized', `this route needs a browser session: ${PERSON_CONFIRMS}`, bearerChallenge(ctx.config.baseUrl));
      const principal = await authenticate(ctx, request, cookie, server);
      if (principal.kind !== 'session') throw new AppError('forbidden', `this route needs a browser session, not an API key: ${PERSON_CONFIRMS}`);
      const user = requireSession(principal);
      const ref = parseClaimRef(jsonBody(request, body));
      return run(user, ref, { ip: clientIp(request, server, ctx.config.trustProxy), meter });
    });
  }

  return new Elysia({ prefix: '/api/agent', detail: { tags: ['agent'] } })
    .use(authMacro(ctx))
    .post(
      '/auth',
      async ({ request, body, server, set }) => {
        const meter = new RateMeter(ctx);
        const caller = { ip: clientIp(request, server, ctx.config.trustProxy), meter };
        Object.assign(set.headers, NO_STORE);
        const out = await metered(meter, set, async (): Promise<Static<typeof AgentRegistration>> => {
          const type = mediaTypeOf(request);
          if (type === 'application/jwt') return registerWithAssertion(deps, bodyText(body), caller);
          if (COMPACT_JWS.test(bodyText(body))) {
            throw new AppError('invalid_request', 'this body looks like an identity assertion: send it with Content-Type: application/jwt');
          }
          const input = parseRegisterJson(jsonBody(request, body));
          return input.type === 'anonymous'
            ? registerAnonymous(deps, input, caller)
            : registerVerifiedEmail(deps, input, caller);
        });
        set.status = 201;
        return out;
      },
      {
        parse: rawText,
        detail: {
          summary: 'Register an agent: anonymous, verified_email (JSON with type), or an identity assertion (Content-Type: application/jwt)',
          security: [],
          requestBody: RegisterRequestDoc,
          responses: documented({
            201: { description: 'Registered: the key at once (anonymous, assertion) or a code sent by mail (verified_email)', schema: AgentRegistration },
            ...codedErrors({
              400: 'invalid_request, invalid_email, unsupported_credential_type, invalid_token',
              401: 'invalid_issuer, invalid_audience, invalid_signature, credential_expired, replay_detected',
              403: 'missing_verified_email',
              409: 'too_many_keys',
              503: 'temporarily_unavailable (Retry-After says when to retry)',
            }),
          }),
        },
      },
    )
    .post(
      '/auth/poll',
      async ({ request, body, set }) => {
        Object.assign(set.headers, NO_STORE);
        // Not rate limited (a 256-bit token cannot be guessed); the meter only marks errors no-store.
        return metered(new RateMeter(ctx), set, async (): Promise<Static<typeof RegistrationStatus>> => pollRegistration(deps, claimTokenOf(jsonBody(request, body))));
      },
      {
        parse: rawText,
        detail: {
          summary: 'Poll a registration with {claim_token}: pending (with user_code), claimed, or denied (a person refused it: register again)',
          security: [],
          requestBody: PollRequestDoc,
          responses: documented({
            200: { description: 'Its status', schema: RegistrationStatus },
            ...codedErrors({ 400: 'invalid_request, invalid_claim_token', 410: 'claim_expired, or otp_expired (an email registration whose code took too many wrong tries): register again' }),
          }),
        },
      },
    )
    .post(
      '/auth/claim/verify-otp',
      async ({ request, body, server, set }) => {
        const meter = new RateMeter(ctx);
        Object.assign(set.headers, NO_STORE);
        return metered(meter, set, async (): Promise<Static<typeof IssuedKey>> => {
          const json = jsonBody(request, body);
          const input = { claimToken: claimTokenOf(json), otp: otpOf(json) };
          return verifyOtp(deps, input, { ip: clientIp(request, server, ctx.config.trustProxy), meter });
        });
      },
      {
        parse: rawText,
        detail: {
          summary: 'Verify the emailed code {claim_token, otp}; returns the API key once',
          security: [],
          requestBody: VerifyOtpRequestDoc,
          responses: documented({
            200: { description: 'The key', schema: IssuedKey },
            ...codedErrors({
              400: 'invalid_request, invalid_claim_token',
              401: 'otp_invalid (the attempt counts)',
              409: 'previously_claimed, too_many_keys',
              410: 'otp_expired (register again)',
            }),
          }),
        },
      },
    )
    .post(
      '/auth/claim/confirm',
      async ({ request, cookie, body, server, set }): Promise<Static<typeof ClaimResult>> =>
        sessionClaimVerb(request, cookie, body, server, set, (user, ref, caller) => confirmClaim(deps, user, ref, caller)),
      {
        parse: rawText,
        detail: {
          summary: 'Claim an anonymous registration {claim_token} or {user_code} (browser session only)',
          requestBody: ConfirmRequestDoc,
          responses: documented({
            200: { description: 'Claimed', schema: ClaimResult },
            ...codedErrors({
              400: 'invalid_request, invalid_claim_token',
              401: 'unauthorized (no browser session)',
              403: 'forbidden (an API key: this route needs a browser session)',
              409: 'previously_claimed, claim_denied, too_many_keys',
              410: 'claim_expired',
            }),
          }),
        },
      },
    )
    .post(
      '/auth/claim/deny',
      async ({ request, cookie, body, server, set }): Promise<Static<typeof DenyResult>> =>
        sessionClaimVerb(request, cookie, body, server, set, (user, ref, caller) => denyClaim(deps, user, ref, caller)),
      {
        parse: rawText,
        detail: {
          summary: 'Refuse an anonymous registration {claim_token} or {user_code} (browser session only): its key is revoked, its sandbox endpoints end, the poll says denied',
          requestBody: ConfirmRequestDoc,
          responses: documented({
            200: { description: 'Refused', schema: DenyResult },
            ...codedErrors({
              400: 'invalid_request, invalid_claim_token',
              401: 'unauthorized (no browser session)',
              403: 'forbidden (an API key: this route needs a browser session)',
              409: 'previously_claimed, claim_denied',
              410: 'claim_expired',
            }),
          }),
        },
      },
    )
    .post(
      '/auth/revoke',
      async ({ request, body, set }) => {
        try {
          if (mediaTypeOf(request) !== 'application/logout+jwt') {
            throw new AppError('invalid_request', 'send the logout token with Content-Type: application/logout+jwt');
          }
          const out: Static<typeof RevokeResult> = await revokeBySubject(deps, bodyText(body));
          Object.assign(set.headers, NO_STORE);
          return out;
        } catch (e) {
          return logoutFailure(e);
        }
      },
      {
        parse: rawText,
        detail: {
          summary: 'Identity providers: revoke every key issued for a subject (logout token)',
          security: [],
          requestBody: RevokeRequestDoc,
          responses: documented({
            200: { description: 'Done', schema: RevokeResult },
            // OIDC Back-Channel Logout: every refusal is a 400, except our issuer's keys being unreachable.
            ...codedErrors({
              400: 'invalid_request, invalid_token, invalid_issuer, invalid_signature, invalid_audience, credential_expired, replay_detected',
              503: 'temporarily_unavailable (the issuer keys could not be fetched)',
            }),
          }),
        },
      },
    )
    .post(
      '/sandbox/endpoints',
      async ({ principal, body, request, set }): Promise<Static<typeof SandboxEndpoint>> => {
        const key = requireUnclaimedKey(principal);
        refuseSandboxBody(request, body);
        set.status = 201;
        return createSandboxEndpoint(ctx, key);
      },
      {
        credential: true,
        parse: rawText,
        detail: {
          summary: 'Unclaimed agent keys: create an ephemeral capture-only endpoint. Takes no body (empty or {}): any field is refused, mockResponse, notificationUrl and signing with a word on claiming',
          responses: documented({
            201: { description: 'The endpoint', schema: SandboxEndpoint },
            ...codedErrors({
              401: 'unauthorized (no or unknown key)',
              403: 'forbidden (not an unclaimed agent key: use /api/endpoints)',
              400: 'invalid_request (a body that is not empty or {}: any field, a non-object, not JSON)',
              409: `conflict (the key already has its live sandbox endpoints)`,
            }),
          }),
        },
      },
    )
    .get(
      '/sandbox/endpoints',
      async ({ principal, query }): Promise<Static<typeof SandboxListing>> => {
        const key = requireUnclaimedKey(principal);
        if (query.slug === undefined) return listSandboxEndpoints(ctx, key);
        // Checked here, not by clampLimit: an agent route refuses in SPEC 7.2's shape.
        parseLimit(query.limit, ctx.config.listMaxLimit, 'invalid_request');
        return sandboxRequests(ctx, key, query.slug, query.limit);
      },
      {
        credential: true,
        detail: {
          summary: "Unclaimed agent keys: list this key's sandbox endpoints, or ?slug= one endpoint's captured requests",
          parameters: SandboxQueryDoc,
          responses: documented({
            200: { description: 'Endpoints or requests', schema: SandboxListing },
            ...codedErrors({
              400: 'invalid_request (limit)',
              401: 'unauthorized (no or unknown key)',
              403: 'forbidden (not an unclaimed agent key: use /api/endpoints)',
              404: "not_found (not one of this key's live sandbox endpoints)",
            }),
          }),
        },
      },
    )
    .delete('/sandbox/endpoints', sandboxMethod, HIDDEN)
    .patch('/sandbox/endpoints', sandboxMethod, HIDDEN)
    .put('/sandbox/endpoints', sandboxMethod, HIDDEN)
    .all('/sandbox/endpoints/*', sandboxItem, HIDDEN)
    // A guessed agent route (/register, /token, a method a route lacks): say where agents start.
    .all('/*', ({ request }) => errorResponse(new AppError('not_found', `no agent route ${request.method} ${shortPath(pathnameOf(request.url))}: ${AGENT_START}`)), HIDDEN)
    .all('/auth', postOnly('a JSON body {"type": "anonymous" or "verified_email", "client_name", …}, or an identity assertion with Content-Type: application/jwt'), HIDDEN)
    .all('/auth/poll', postOnly('a JSON body {"claim_token": "clm_…"}'), HIDDEN)
    .all('/auth/claim/verify-otp', postOnly('a JSON body {"claim_token": "clm_…", "otp": "<the 6 digits from the mail>"}'), HIDDEN)
    .all('/auth/claim/confirm', postOnly(`a JSON body {"claim_token"} or {"user_code"}, with a browser session; ${PERSON_CONFIRMS}`), HIDDEN)
    .all('/auth/claim/deny', postOnly(`a JSON body {"claim_token"} or {"user_code"}, with a browser session; ${PERSON_CONFIRMS}`), HIDDEN)
    .all('/auth/revoke', postOnly('a logout token with Content-Type: application/logout+jwt'), HIDDEN);
};
