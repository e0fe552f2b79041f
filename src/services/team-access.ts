/**
 * Announces that who may read some endpoints changed through a team (a member left or was
 * removed, a share ended, a team was deleted, a subscription changed). Reads check Postgres on
 * every call, so list, page, get and search need nothing; this is for state held open on a node —
 * a live stream — which must re-check `getReadableEndpoint` for its viewer and close when it fails.
 *
 * @example
 * ctx.bus.subscribe(TEAM_ACCESS_SUBJECT, (data) => {
 *   for (const id of decodeTeamAccess(data).endpointIds) recheckStreamsOf(id);
 * });
 */
import { decodeJson, encodeJson, type Bus } from '../bus/types';

export const TEAM_ACCESS_SUBJECT = 'config.team-access';

export interface TeamAccessChange {
  teamId: string;
  /** Endpoints whose team readers may have changed. */
  endpointIds: string[];
}

export function announceTeamAccess(bus: Pick<Bus, 'publish'>, change: TeamAccessChange): void {
  if (change.endpointIds.length === 0) return;
  bus.publish(TEAM_ACCESS_SUBJECT, encodeJson(change));
}

export function decodeTeamAccess(data: Uint8Array): TeamAccessChange {
  const v = decodeJson<Partial<TeamAccessChange>>(data);
  return {
    teamId: typeof v.teamId === 'string' ? v.teamId : '',
    endpointIds: Array.isArray(v.endpointIds) ? v.endpointIds.filter((x): x is string => typeof x === 'string') : [],
  };
}
