/**
 * Endpoint activity for the endpoint list (`GET /api/endpoints/activity`): per readable endpoint,
 * how many captures it holds now and when the newest came. Readable and scoped exactly as list,
 * count and search are (visibility.ts, each endpoint's clear watermark), counted by the capture
 * store in one grouped query for every endpoint of the call.
 */
import type { UserRow } from '../stores/state/schema';
import type { Ctx } from './context';
import { readableEndpoints, scopeOf } from './visibility';

/**
 * Endpoints answered per call: the caller's own first, then those shared with them, each in the
 * order their list gives (creation, oldest first); any past this are left out of the answer. One
 * query's IN list of 1,000 ids is ~35 KB of SQL, and the query reads two key columns of those
 * endpoints only (docs/api.md).
 */
export const ACTIVITY_MAX_ENDPOINTS = 1000;

export interface EndpointActivityBody {
  slug: string;
  count: number;
  lastReceivedAt: number | null;
}

export async function endpointActivity(ctx: Ctx, user: UserRow): Promise<EndpointActivityBody[]> {
  const endpoints = (await readableEndpoints(ctx, user)).slice(0, ACTIVITY_MAX_ENDPOINTS);
  if (endpoints.length === 0) return [];
  const found = new Map((await ctx.captures.activity(endpoints.map(scopeOf))).map((a) => [a.endpointId, a]));
  return endpoints.map((e) => {
    const a = found.get(e.id);
    return { slug: e.slug, count: a?.count ?? 0, lastReceivedAt: a?.lastReceivedAt ?? null };
  });
}
