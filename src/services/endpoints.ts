/** Capture endpoints: every read and write is scoped to the caller's account. */
import { AppError } from '../errors';
import { newSlug, randomId } from '../ids';
import * as store from '../stores/state/endpoints';
import { MOCK_VALUE_REFUSAL, mockHeaderRefusal } from '../engine/receiver-headers';
import { hasControlCharacter, typedHeaderValue } from '../model/header-bytes';
import type { SigningConfig } from '../engine/signing';
import type { EndpointRow, MockResponse, UserRow } from '../stores/state/schema';
import type { Ctx } from './context';
import { writeEndpoints } from './endpoint-writes';
import { EXPIRES_IN_MAX_S, EXPIRES_IN_MIN_S } from '../model/endpoint-expiry';
import { literalTargetRefusal } from '../net/outbound';

/**
 * The signing config as reads show it: everything but the secret, which is reduced to a hint
 * (its last 4 characters) so an owner can tell which secret is set without it ever leaving.
 */
export function publicSigning(signing: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!signing) return null;
  const { secret, ...rest } = signing;
  const s = typeof secret === 'string' ? secret : '';
  return { ...rest, secretHint: s.length >= 12 ? `…${s.slice(-4)}` : '…' };
}

/**
 * Why notifications to `url` will not be sent, told where the URL is shown rather than refused
 * when saved: SPEC 2.3 takes any http or https URL, and a conformance client may save a local one.
 * Only an IP literal or `localhost` is judged (what a name resolves to can change before a send),
 * with the notifier's own rule and allow list (OUTBOUND_ALLOW).
 */
function notificationWarning(url: string | null, config: Ctx['config']): string | null {
  const refused = url === null ? null : literalTargetRefusal(url, config.outboundAllow);
  return refused === null ? null : `Notifications to this URL will not be sent: ${refused}, and this server sends only to public addresses unless OUTBOUND_ALLOW lists it.`;
}

export function publicEndpoint(ctx: Ctx, e: EndpointRow) {
  const warning = notificationWarning(e.notificationUrl ?? null, ctx.config);
  return {
    id: e.id,
    slug: e.slug,
    name: e.name,
    url: `${ctx.config.receiverUrl}/w/${e.slug}`,
    createdAt: e.createdAt,
    // The mock as its owner typed it: the receiver's byte form (wireHeaders) is not part of it.
    mockResponse: e.mockResponse ? { status: e.mockResponse.status, body: e.mockResponse.body, headers: e.mockResponse.headers } : null,
    notificationUrl: e.notificationUrl ?? null,
    // Absent unless there is something to say: every other endpoint reads exactly as before.
    ...(warning === null ? {} : { notificationWarning: warning }),
    signing: publicSigning(e.signing ?? null),
    // Never the secret itself: it is shown once, by the route that makes it.
    notificationSigning: e.notificationSigning ? { createdAt: e.notificationSigning.createdAt } : null,
    expiresAt: e.expiresAt ?? null,
  };
}

export type PublicEndpoint = ReturnType<typeof publicEndpoint>;

export { EXPIRES_IN_MAX_S, EXPIRES_IN_MIN_S };

/** An endpoint at or past its expiresAt is gone for every reader, as on the receiver, before the sweeper deletes it. */
export const isExpired = (e: Pick<EndpointRow, 'expiresAt'>, now: number): boolean => e.expiresAt !== null && e.expiresAt <= now;

function expiryFrom(now: number, expiresIn: number): number {
  // The route schema checks the same bounds; this keeps a direct caller honest too.
  if (!Number.isInteger(expiresIn) || expiresIn < EXPIRES_IN_MIN_S || expiresIn > EXPIRES_IN_MAX_S) {
    throw new AppError('validation', `expiresIn must be a whole number of seconds from ${EXPIRES_IN_MIN_S} to ${EXPIRES_IN_MAX_S} (30 days)`);
  }
  return now + expiresIn * 1000;
}

/**
 * Trimmed, without control characters: a name is printed by the CLI on terminals and written into
 * mail and logs, where ESC or a line break would act rather than show (team names are held alike).
 */
function endpointName(raw: string): string {
  const name = raw.trim();
  if (/\p{Cc}/u.test(name)) throw new AppError('validation', 'name must not contain control characters');
  return name;
}

/** `expiresIn`: seconds until the endpoint and its captures are deleted (none: it stays until deleted). */
export async function createEndpoint(ctx: Ctx, user: UserRow, rawName: string, expiresIn?: number): Promise<EndpointRow> {
  const name = endpointName(rawName) || 'Untitled endpoint';
  return writeEndpoints(ctx, async (w) => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const now = ctx.clock.now();
      const row = await store.insertEndpoint(w, {
        id: randomId('ep'),
        slug: newSlug(),
        name,
        userId: user.id,
        expiresAt: expiresIn === undefined ? null : expiryFrom(now, expiresIn),
        createdAt: now,
      });
      if (row) return row;
    }
    throw new AppError('internal', 'could not allocate a unique slug');
  });
}

export const listEndpoints = (ctx: Ctx, user: UserRow) => store.listUserEndpoints(ctx.db, user.id, ctx.clock.now());

/** The caller's own endpoint by slug; 404 for anyone else's, never a hint that it exists, and for an expired one. */
export async function getOwnEndpoint(ctx: Ctx, user: UserRow, slug: string): Promise<EndpointRow> {
  const row = await store.findEndpointBySlug(ctx.db, slug);
  if (!row || row.userId !== user.id || isExpired(row, ctx.clock.now())) throw new AppError('not_found', 'endpoint not found');
  return row;
}

/** A mock response as a client sets it: a body or headers left out are none (SPEC 2.2 names all three). */
export type MockResponseInput = Pick<MockResponse, 'status'> & Partial<Pick<MockResponse, 'body' | 'headers'>>;

export interface EndpointPatch {
  name?: string;
  mockResponse?: MockResponseInput | null;
  notificationUrl?: string | null;
  /** Endpoint-level signature verification; null turns it off. Validated by the route schema. */
  signing?: SigningConfig | null;
  /** Seconds from now until the endpoint expires (a new expiry replaces the old); null: never expires. */
  expiresIn?: number | null;
  /**
   * Read-only, taken so an endpoint read with GET can be sent back whole: the value GET shows is
   * ignored; another one, without `expiresIn`, is refused (see `updateEndpoint`).
   */
  expiresAt?: number | null;
}

/**
 * The public hosts of this deployment (host[:port], default ports dropped, as URL#host writes
 * them): a notification sent there would be captured and notify again, without end.
 */
const ownHosts = (config: Ctx['config']) => new Set([new URL(config.receiverUrl).host, new URL(config.baseUrl).host]);

export function validateNotificationUrl(url: string, config: Ctx['config']): void {
  if (url.length > 2048) throw new AppError('validation', 'notificationUrl must be at most 2048 characters');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AppError('validation', 'notificationUrl must be a valid http or https URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new AppError('validation', 'notificationUrl must be a valid http or https URL');
  }
  if (ownHosts(config).has(parsed.host)) {
    throw new AppError('validation', "notificationUrl must not point at this service (its receiver or API): each notification would be captured and notify again");
  }
}

function validateMock(mock: MockResponseInput): MockResponse {
  if (!Number.isInteger(mock.status) || mock.status < 200 || mock.status > 599) {
    throw new AppError('validation', 'mockResponse.status must be an integer from 200 to 599');
  }
  // Null prototype: a header named like an Object.prototype member is kept, not swallowed.
  const headers: Record<string, string> = Object.create(null);
  const wire: Record<string, string> = Object.create(null);
  let typed = false;
  for (const [k, v] of Object.entries(mock.headers ?? {})) {
    const name = k.toLowerCase();
    // Typed text, as `hookcap send -H` and send-test's headers: sent as its UTF-8 bytes, converted
    // here once so the receiver does no work per capture (docs/exports.md "Header bytes").
    const bytes = typedHeaderValue(v);
    // The receiver serves mocks next to the API: see engine/receiver-headers.ts and docs/security.md.
    const refusal = hasControlCharacter(v) ? MOCK_VALUE_REFUSAL : mockHeaderRefusal(name, bytes);
    if (refusal !== null) throw new AppError('validation', `mockResponse.headers may not set "${k}": ${refusal}`);
    headers[name] = v;
    wire[name] = bytes;
    if (bytes !== v) typed = true;
  }
  return typed ? { status: mock.status, body: mock.body ?? '', headers, wireHeaders: wire } : { status: mock.status, body: mock.body ?? '', headers };
}

export async function updateEndpoint(ctx: Ctx, user: UserRow, slug: string, patch: EndpointPatch): Promise<EndpointRow> {
  const current = await getOwnEndpoint(ctx, user, slug);
  // Every other read-only field sent back is ignored (src/http/body-fields.ts). This one is
  // refused when it differs: a client that wrote an expiry into it meant one, and must not be
  // told 200 while the endpoint lives on (the CI clean-up `expiresIn` exists for).
  if (patch.expiresAt !== undefined && patch.expiresIn === undefined && patch.expiresAt !== (current.expiresAt ?? null)) {
    throw new AppError('validation', 'expiresAt: is read-only (when the endpoint expires); to change it send expiresIn, seconds from now (null: never)');
  }
  const set: Parameters<typeof store.updateEndpoint>[2] = {};
  if (patch.name !== undefined) {
    const name = endpointName(patch.name);
    if (!name) throw new AppError('validation', 'name must not be empty');
    set.name = name;
  }
  if (patch.mockResponse !== undefined) set.mockResponse = patch.mockResponse === null ? null : validateMock(patch.mockResponse);
  if (patch.notificationUrl !== undefined) {
    if (patch.notificationUrl !== null) validateNotificationUrl(patch.notificationUrl, ctx.config);
    set.notificationUrl = patch.notificationUrl;
  }
  if (patch.signing !== undefined) set.signing = patch.signing;
  if (patch.expiresIn !== undefined) set.expiresAt = patch.expiresIn === null ? null : expiryFrom(ctx.clock.now(), patch.expiresIn);
  if (Object.keys(set).length === 0) return current;
  const row = await writeEndpoints(ctx, (w) => store.updateEndpoint(w, current.id, set, ctx.clock.now()));
  if (!row) throw new AppError('not_found', 'endpoint not found');
  return row;
}

export async function deleteEndpoint(ctx: Ctx, user: UserRow, slug: string): Promise<void> {
  const row = await getOwnEndpoint(ctx, user, slug);
  await writeEndpoints(ctx, (w) => store.deleteEndpoints(w, [row.id], ctx.clock.now()));
}
