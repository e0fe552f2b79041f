/**
 * Why the receiver (/w/) refused a request, counted since start for /healthz (`refusals`) and
 * /metrics (`hookcap_receiver_refusals_total`): a sender whose webhooks "vanish" is being answered
 * one of these. The set is closed and each reason has one error code (so one status): the counts
 * are a fixed array, never keyed by a slug or anything else a sender chooses, so no request can
 * grow this node's memory or a metric's label set.
 *
 * Counted where the receiver answers a refusal (src/http/receiver.ts), never on the acknowledged
 * path.
 */
import { AppError, ERROR_STATUS, type ErrorCode } from '../errors';

/** Each reason and the error code the sender is answered with (docs/operations.md, "/healthz"). */
export const REFUSAL_CODES = {
  /** The path after /w/ cannot be a slug (empty, upper case, wrong length or characters): not looked up. */
  invalid_slug: 'not_found',
  /** No endpoint has this slug (never had, or deleted). */
  unknown_endpoint: 'not_found',
  /** The endpoint's expiresAt has passed (until the sweeper deletes it; then unknown_endpoint). */
  expired_endpoint: 'not_found',
  /** A listener without the receiver (the API's port when RECEIVER_PORT is set, a node without the receiver role). */
  no_receiver: 'not_found',
  /** The body is over MAX_BODY_BYTES. */
  payload_too_large: 'payload_too_large',
  /** The sender's connection ended before its body did (it hung up, or it reset): nothing to store. */
  body_incomplete: 'validation',
  /** The owning account's monthly quota (its plan in PLANS) is used up. */
  quota_exceeded: 'quota_exceeded',
  /** An unclaimed agent key's sandbox used its SANDBOX_MAX_CAPTURES for the month. */
  sandbox_quota_exceeded: 'quota_exceeded',
  /** BACKLOG_LIMIT captures wait to be stored (the capture store is slow or down). */
  capture_store_behind: 'unavailable',
  /** The capture log write failed (disk full, I/O error). */
  capture_log_failed: 'unavailable',
  /** The endpoint could not be looked up: the state store (Postgres) did not answer. */
  state_store_unreachable: 'unavailable',
  /** Anything else: a failure of ours (500), logged as such. */
  internal: 'internal',
} as const satisfies Record<string, ErrorCode>;

export type RefusalReason = keyof typeof REFUSAL_CODES;

export const REFUSAL_REASONS = Object.keys(REFUSAL_CODES) as RefusalReason[];

/** The HTTP status a reason is answered with. */
export const refusalStatus = (reason: RefusalReason): number => ERROR_STATUS[REFUSAL_CODES[reason]];

/** An AppError that says which refusal it is, so the receiver can count it without reading its message. */
export class ReceiverRefusal extends AppError {
  constructor(
    readonly reason: RefusalReason,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(REFUSAL_CODES[reason], message, headers);
  }
}

export type RefusalCounts = Record<RefusalReason, number>;

/** The counts: one number per reason, all present (0) from start. */
export class ReceiverRefusals {
  private readonly counts = Object.fromEntries(REFUSAL_REASONS.map((r) => [r, 0])) as RefusalCounts;

  count(reason: RefusalReason): void {
    this.counts[reason] += 1;
  }

  /** A copy: the report's object is the caller's. */
  snapshot(): RefusalCounts {
    return { ...this.counts };
  }
}
