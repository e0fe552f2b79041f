/**
 * Errors are values with a code. Services throw (or return) AppError; one table maps a code to its
 * HTTP status, and one handler (src/http/errors.ts) renders `{error, code}`.
 *
 * Capture API errors render `error` as a human message; agent API errors (SPEC 7.2) render
 * `error` as the code itself, with the message in `error_description`.
 */
export const ERROR_STATUS = {
  // capture API (SPEC 7.1)
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  /** A path under /api that is a route, but not with this method; the answer carries `Allow`. */
  method_not_allowed: 405,
  conflict: 409,
  /** A password-reset link that is unknown, used, replaced by a newer one, or expired (one message for all). */
  invalid_reset_token: 400,
  /** An address-verification link that is unknown, used, replaced, expired, or for an address the account no longer has. */
  invalid_verification_token: 400,
  /** A password change whose current password is wrong (not 401: the session is fine). */
  wrong_password: 400,
  /** PIN_LIMIT pinned captures already (docs/retention.md). */
  pin_limit: 409,
  /** TEAM_LIMIT teams owned already (docs/teams.md). */
  team_limit: 409,
  /** Accepting an invite to a team that takes only members with a proven address (docs/teams.md). */
  address_not_confirmed: 403,
  length_required: 411,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited_api: 429,
  quota_exceeded: 429,
  too_many_streams: 429,
  payment_required: 402,
  unavailable: 503,
  /**
   * A replay to an address the outbound guard keeps the server from (loopback, private, link-local,
   * metadata) and OUTBOUND_ALLOW does not list. Not `validation`: the URL is well formed, only the
   * server may not send there while the caller's own machine may (`hookcap replay`), so a client
   * tells it apart by the code (the dashboard offers that command) instead of by the message's words.
   */
  address_not_public: 400,
  /** An outbound request the caller asked for (replay) got no answer from its target. */
  bad_gateway: 502,
  internal: 500,
  // agent API (SPEC 7.2)
  invalid_request: 400,
  invalid_issuer: 401,
  invalid_audience: 401,
  invalid_signature: 401,
  credential_expired: 401,
  replay_detected: 401,
  missing_verified_email: 403,
  invalid_claim_token: 400,
  claim_expired: 410,
  previously_claimed: 409,
  /** A person refused this anonymous registration (its key is revoked): final. */
  claim_denied: 409,
  otp_invalid: 401,
  otp_expired: 410,
  too_many_keys: 409,
  rate_limited: 429,
  temporarily_unavailable: 503,
  unsupported_credential_type: 400,
  invalid_email: 400,
  invalid_token: 400,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Codes whose JSON `error` is the code itself (the agent API of SPEC 7.2). */
const AGENT_CODES = new Set<ErrorCode>([
  'invalid_request',
  'invalid_issuer',
  'invalid_audience',
  'invalid_signature',
  'credential_expired',
  'replay_detected',
  'missing_verified_email',
  'invalid_claim_token',
  'claim_expired',
  'previously_claimed',
  'claim_denied',
  'otp_invalid',
  'otp_expired',
  'too_many_keys',
  'rate_limited',
  'temporarily_unavailable',
  'unsupported_credential_type',
  'invalid_email',
  'invalid_token',
]);

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
    /**
     * The number a limit refusal is about (TEAM_LIMIT, PIN_LIMIT …), sent as `limit` so a client
     * says it in its own words instead of reading it out of the English message.
     */
    readonly limit?: number,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }

  /**
   * What an operator needs beside the message in the one line src/http/errors.ts logs for a
   * logged refusal (a 503 `temporarily_unavailable`): why it happened, never sent to the caller.
   * The place that knows the cause says it here instead of logging a second line of its own.
   */
  logFields: Readonly<Record<string, unknown>> = {};

  /** This error with `fields` added to its log line (see `logFields`). */
  withLogFields(fields: Record<string, unknown>): this {
    this.logFields = { ...this.logFields, ...fields };
    return this;
  }

  toJSON(): Record<string, string | number> {
    if (AGENT_CODES.has(this.code)) return { error: this.code, error_description: this.message };
    return this.limit === undefined ? { error: this.message, code: this.code } : { error: this.message, code: this.code, limit: this.limit };
  }
}

export const invalid = (message: string) => new AppError('validation', message);
