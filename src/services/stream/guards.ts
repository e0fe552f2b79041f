/** The node's stream guards, made once by createServices and closed at shutdown. */
import type { BaseCtx } from '../context';
import { TeamStreamGuard } from './team-guard';
import { EndpointStreamGuard } from './endpoint-guard';
import { CredentialStreamGuard } from './credential-guard';

export interface StreamGuards {
  /** Ends streams of an endpoint deleted or expired. */
  endpoints: EndpointStreamGuard;
  /** Ends streams whose viewer's team access ended. */
  teams: TeamStreamGuard;
  /** Ends streams whose API key or browser session was revoked, or whose session expired. */
  credentials: CredentialStreamGuard;
  /** Drops the guards' bus subscriptions. */
  close(): void;
}

export function createStreamGuards(base: Pick<BaseCtx, 'db' | 'bus' | 'clock' | 'config'>): StreamGuards {
  const endpoints = new EndpointStreamGuard(base);
  const teams = new TeamStreamGuard(base);
  const credentials = new CredentialStreamGuard(base, { recheckMs: base.config.stream.recheckMs, horizonMs: base.config.stream.maxMs });
  return {
    endpoints,
    teams,
    credentials,
    close() {
      endpoints.close();
      teams.close();
      credentials.close();
    },
  };
}
