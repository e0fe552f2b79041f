/** The node's stream guards, made once by createServices and closed at shutdown. */
import type { BaseCtx } from '../context';
import { TeamStreamGuard } from './team-guard';
import { EndpointStreamGuard } from './endpoint-guard';
import { CredentialStreamGuard } from './credential-guard';
import { StreamRecheck } from './recheck';

export interface StreamGuards {
  /** Ends streams of an endpoint deleted or expired. */
  endpoints: EndpointStreamGuard;
  /** Ends streams whose viewer's team access ended. */
  teams: TeamStreamGuard;
  /** Ends streams whose API key or browser session was revoked, or whose session expired. */
  credentials: CredentialStreamGuard;
  /** Every STREAM_RECHECK_MS, one read of all the above for every open stream: the bound for a lost announcement. */
  recheck: StreamRecheck;
  /** Drops the guards' bus subscriptions. */
  close(): void;
}

export function createStreamGuards(base: Pick<BaseCtx, 'db' | 'bus' | 'clock' | 'config'>): StreamGuards {
  const recheck = new StreamRecheck(base, base.config.stream.recheckMs);
  // The order the re-check applies in: a deleted account's own endpoints end as deleted endpoints
  // (the credential guard reads once more before it ends anything), a deleted shared endpoint's
  // team viewers the same way rather than by the team guard's end.
  const endpoints = new EndpointStreamGuard(base, recheck);
  const credentials = new CredentialStreamGuard(base, { horizonMs: base.config.stream.maxMs }, recheck);
  const teams = new TeamStreamGuard(base, recheck);
  return {
    endpoints,
    teams,
    credentials,
    recheck,
    close() {
      recheck.close();
      endpoints.close();
      teams.close();
      credentials.close();
    },
  };
}
