import type { EndpointScope } from './types';

/** Endpoints that share one `since`, so a query can test them with one IN list. */
export interface ScopeGroup {
  since: number;
  endpointIds: string[];
}

/**
 * Groups scopes by `since` (most callers have many endpoints with since 0 and a few cleared ones),
 * keeping the first-seen order so the generated SQL is stable for a given input.
 */
export function groupScopesBySince(scopes: readonly EndpointScope[]): ScopeGroup[] {
  const bySince = new Map<number, Set<string>>();
  for (const { endpointId, since } of scopes) {
    let ids = bySince.get(since);
    if (!ids) {
      ids = new Set();
      bySince.set(since, ids);
    }
    ids.add(endpointId);
  }
  return [...bySince].map(([since, ids]) => ({ since, endpointIds: [...ids] }));
}
