/** Capture endpoints: every read and write is scoped to the caller's account. */
import { AppError } from '../errors';
import { newSlug, randomId } from '../ids';
import { encodeJson, subjects } from '../bus/types';
import * as store from '../stores/state/endpoints';
import type { SigningConfig } from '../engine/signing';
import type { EndpointRow, MockResponse, UserRow } from '../stores/state/schema';
import type { Ctx } from './context';

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

export const publicEndpoint = (ctx: Ctx, e: EndpointRow) => ({
  id: e.id,
  slug: e.slug,
  name: e.name,
  url: `${ctx.config.receiverUrl}/w/${e.slug}`,
  createdAt: e.createdAt,
  mockResponse: e.mockResponse ?? null,
  notificationUrl: e.notificationUrl ?? null,
  signing: publicSigning(e.signing ?? null),
});

export type PublicEndpoint = ReturnType<typeof publicEndpoint>;

/** Tells every node's actors that a slug's snapshot is stale. */
export function announceChange(ctx: Ctx, slug: string): void {
  ctx.bus.publish(subjects.endpointChanged, encodeJson({ slug }));
}

export async function createEndpoint(ctx: Ctx, user: UserRow, name: string): Promise<EndpointRow> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const row = await store.insertEndpoint(ctx.db, {
      id: randomId('ep'),
      slug: newSlug(),
      name: name.trim() || 'Untitled endpoint',
      userId: user.id,
      createdAt: Date.now(),
    });
    if (row) {
      announceChange(ctx, row.slug);
      return row;
    }
  }
  throw new AppError('internal', 'could not allocate a unique slug');
}

export const listEndpoints = (ctx: Ctx, user: UserRow) => store.listUserEndpoints(ctx.db, user.id);

/** The caller's own endpoint by slug; 404 for anyone else's, never a hint that it exists. */
export async function getOwnEndpoint(ctx: Ctx, user: UserRow, slug: string): Promise<EndpointRow> {
  const row = await store.findEndpointBySlug(ctx.db, slug);
  if (!row || row.userId !== user.id) throw new AppError('not_found', 'endpoint not found');
  return row;
}

export interface EndpointPatch {
  name?: string;
  mockResponse?: MockResponse | null;
  notificationUrl?: string | null;
  /** Endpoint-level signature verification; null turns it off. Validated by the route schema. */
  signing?: SigningConfig | null;
}

const HOP_BY_HOP = new Set(['connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'te', 'trailer']);

export function validateNotificationUrl(url: string): void {
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
}

function validateMock(mock: MockResponse): MockResponse {
  if (!Number.isInteger(mock.status) || mock.status < 200 || mock.status > 599) {
    throw new AppError('validation', 'mockResponse.status must be an integer from 200 to 599');
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(mock.headers ?? {})) {
    const name = k.toLowerCase();
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) throw new AppError('validation', `mockResponse.headers has an invalid header name "${k}"`);
    if (/[\r\n]/.test(v)) throw new AppError('validation', `mockResponse.headers["${k}"] must not contain line breaks`);
    if (HOP_BY_HOP.has(name)) throw new AppError('validation', `mockResponse.headers may not set "${name}"`);
    headers[name] = v;
  }
  return { status: mock.status, body: mock.body ?? '', headers };
}

export async function updateEndpoint(ctx: Ctx, user: UserRow, slug: string, patch: EndpointPatch): Promise<EndpointRow> {
  const current = await getOwnEndpoint(ctx, user, slug);
  const set: Parameters<typeof store.updateEndpoint>[2] = {};
  if (patch.name !== undefined) {
    if (!patch.name.trim()) throw new AppError('validation', 'name must not be empty');
    set.name = patch.name.trim();
  }
  if (patch.mockResponse !== undefined) set.mockResponse = patch.mockResponse === null ? null : validateMock(patch.mockResponse);
  if (patch.notificationUrl !== undefined) {
    if (patch.notificationUrl !== null) validateNotificationUrl(patch.notificationUrl);
    set.notificationUrl = patch.notificationUrl;
  }
  if (patch.signing !== undefined) set.signing = patch.signing;
  if (Object.keys(set).length === 0) return current;
  const row = await store.updateEndpoint(ctx.db, current.id, set);
  if (!row) throw new AppError('not_found', 'endpoint not found');
  announceChange(ctx, row.slug);
  return row;
}

export async function deleteEndpoint(ctx: Ctx, user: UserRow, slug: string): Promise<void> {
  const row = await getOwnEndpoint(ctx, user, slug);
  await store.deleteEndpoints(ctx.db, [row.id], Date.now());
  announceChange(ctx, row.slug);
}
