/** The node's stream guards, made once by createServices and closed at shutdown. */
import type { BaseCtx } from '../context';
import { TeamStreamGuard } from './team-guard';
import { EndpointStreamGuard } from './endpoint-guard';

export interface StreamGuards {
  /** Ends streams of an endpoint deleted or expired. */
  endpoints: EndpointStreamGuard;
  /** Ends streams whose viewer's team access ended. */
  teams: TeamStreamGuard;
  /** Drops both guards' bus subscriptions. */
  close(): void;
}

export function createStreamGuards(base: Pick<BaseCtx, 'db' | 'bus' | 'clock'>): StreamGuards {
  const endpoints = new EndpointStreamGuard(base);
  const teams = new TeamStreamGuard(base);
  return {
    endpoints,
    teams,
    close() {
      endpoints.close();
      teams.close();
    },
  };
}
