/**
 * How a list names endpoints. New endpoints are all "Untitled endpoint": where two listed share a
 * name, each of them carries its slug ("Untitled endpoint · k3j9p2m7") so that they can be told
 * apart; a name met once stays as it is. One helper for Switch endpoint, Search's Endpoint select
 * and results, and a team's shared endpoints and Endpoint to share.
 */
export interface Labelled {
  slug: string;
  name: string;
}

/** The slug shown after a repeated name (empty for a name that is unique in `list`). */
export function endpointSuffixes(list: readonly Labelled[]): (e: Labelled) => string {
  const seen = new Map<string, Set<string>>();
  for (const e of list) {
    const slugs = seen.get(e.name) ?? new Set<string>();
    slugs.add(e.slug);
    seen.set(e.name, slugs);
  }
  return (e) => ((seen.get(e.name)?.size ?? 0) > 1 ? e.slug : '');
}

/** Each endpoint's name as `list` shows it: its slug added when another endpoint there has the same name. */
export function endpointLabels(list: readonly Labelled[]): (e: Labelled) => string {
  const suffix = endpointSuffixes(list);
  return (e) => {
    const s = suffix(e);
    return s ? `${e.name} · ${s}` : e.name;
  };
}
