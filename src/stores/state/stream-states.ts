/**
 * What a stream node's periodic re-check reads, for all its open streams in one statement: which
 * of their API keys and sessions are still live, which of their endpoints still exist (by slug),
 * and which team viewers still read an endpoint through an active team.
 */
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from './db';
import type { CredentialState } from './accounts';
import { apiKeys, endpoints, sessions, teamEndpoints, teamMembers, teamSubscriptions } from './schema';
import { activeStatusSql } from './team-subscriptions';

export interface StreamStateQuery {
  keyIds: readonly string[];
  tokenHashes: readonly string[];
  slugs: readonly string[];
  /** Team viewers: endpoint id and viewer id, pair by pair. */
  shares: readonly { endpointId: string; userId: string }[];
}

export interface StreamStates {
  /** Live (unrevoked) keys by id. */
  keys: Map<string, CredentialState>;
  /** Sessions by token hash. */
  sessions: Map<string, CredentialState>;
  /** Endpoints by slug. */
  endpoints: Map<string, { id: string; expiresAt: number | null }>;
  /** The `shareKey`s of the pairs still readable through an active team. */
  shares: Set<string>;
}

export const shareKey = (endpointId: string, userId: string): string => `${endpointId} ${userId}`;

export async function streamStates(db: Db, q: StreamStateQuery): Promise<StreamStates> {
  const out: StreamStates = { keys: new Map(), sessions: new Map(), endpoints: new Map(), shares: new Set() };
  if (q.keyIds.length + q.tokenHashes.length + q.slugs.length + q.shares.length === 0) return out;
  const shareEndpoints = [...new Set(q.shares.map((s) => s.endpointId))];
  const shareUsers = [...new Set(q.shares.map((s) => s.userId))];
  // One statement for the four reads; an empty list matches nothing (drizzle renders it as false).
  // Columns: `ref` is what the stream knows (key id, token hash, slug, endpoint id), `owner` the
  // key's or session's account, the endpoint's id, or the team viewer.
  const rows = await db
    .select({ kind: sql<string>`'key'`, ref: apiKeys.id, owner: sql<string | null>`${apiKeys.userId}`, expiresAt: sql<string | null>`NULL::bigint` })
    .from(apiKeys)
    .where(and(inArray(apiKeys.id, [...q.keyIds]), isNull(apiKeys.revokedAt)))
    .unionAll(
      db
        .select({ kind: sql<string>`'session'`, ref: sessions.tokenHash, owner: sql<string | null>`${sessions.userId}`, expiresAt: sql<string | null>`${sessions.expiresAt}` })
        .from(sessions)
        .where(inArray(sessions.tokenHash, [...q.tokenHashes])),
    )
    .unionAll(
      db
        .select({ kind: sql<string>`'endpoint'`, ref: endpoints.slug, owner: sql<string | null>`${endpoints.id}`, expiresAt: sql<string | null>`${endpoints.expiresAt}` })
        .from(endpoints)
        .where(inArray(endpoints.slug, [...q.slugs])),
    )
    .unionAll(
      db
        .select({ kind: sql<string>`'share'`, ref: teamEndpoints.endpointId, owner: sql<string | null>`${teamMembers.userId}`, expiresAt: sql<string | null>`NULL::bigint` })
        .from(teamEndpoints)
        .innerJoin(teamMembers, eq(teamMembers.teamId, teamEndpoints.teamId))
        .innerJoin(teamSubscriptions, and(eq(teamSubscriptions.teamId, teamEndpoints.teamId), activeStatusSql))
        .where(and(inArray(teamEndpoints.endpointId, shareEndpoints), inArray(teamMembers.userId, shareUsers))),
    );
  for (const r of rows) {
    if (r.owner === null) continue;
    // A bigint comes back as a string through a raw sql column; the driver may also give a number.
    const expiresAt = r.expiresAt === null ? null : Number(r.expiresAt);
    if (r.kind === 'key') out.keys.set(r.ref, { userId: r.owner, expiresAt });
    else if (r.kind === 'session') out.sessions.set(r.ref, { userId: r.owner, expiresAt });
    else if (r.kind === 'endpoint') out.endpoints.set(r.ref, { id: r.owner, expiresAt });
    else out.shares.add(shareKey(r.ref, r.owner));
  }
  return out;
}
