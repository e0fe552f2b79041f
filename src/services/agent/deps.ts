/**
 * What the agent verbs need beyond Ctx: the trusted identity providers (parsed once, in config),
 * their JWKS cache, the mail sender and the server secret. Built once per service, by
 * createServices (services/build.ts).
 */
import { createJwksCache, type JwksCache } from '../../auth/agent/jwks';
import type { IdJagProvider } from '../../auth/agent/providers';
import type { Mailer } from '../../mail';
import type { Ctx } from '../context';

export interface AgentDeps {
  ctx: Ctx;
  mailer: Mailer;
  providers: readonly IdJagProvider[];
  keys: JwksCache;
  /** `{base_url}/api/`: the audience of assertions and logout tokens (SPEC 4.10). */
  audience: string;
  /** SERVER_SECRET, or the one generated once and kept in Postgres for every node. */
  secret(): Promise<string>;
}

/** The service's agent dependencies (made by createServices). */
export const agentDeps = (ctx: Ctx): AgentDeps => ctx.agent;

/** Called once per service, by createServices. */
export function createAgentDeps(ctx: Ctx): AgentDeps {
  const { config } = ctx;
  const deps: AgentDeps = {
    ctx,
    mailer: ctx.mailer,
    providers: config.agentIdjagProviders,
    keys: createJwksCache({ cooldownMs: config.agent.jwksCooldownMs }),
    audience: `${config.baseUrl}/api/`,
    secret: () => ctx.secrets.codeHmac(),
  };
  return deps;
}
