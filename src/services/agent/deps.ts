/**
 * What the agent verbs need beyond Ctx: the trusted identity providers, their JWKS cache, the mail
 * sender and the server secret. Built once per service (memoised on its Ctx), at start-up, so a
 * bad AGENT_IDJAG_PROVIDERS stops the start with a message naming it.
 */
import { randomBytes } from 'node:crypto';
import { createJwksCache, type JwksCache } from '../../auth/agent/jwks';
import { parseIdJagProviders, type IdJagProvider } from '../../auth/agent/providers';
import { createMailer, type Mailer } from '../../mail';
import { getOrCreateSecret } from '../../stores/state/agent';
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

const built = new WeakMap<Ctx, AgentDeps>();

export function agentDeps(ctx: Ctx): AgentDeps {
  const existing = built.get(ctx);
  if (existing) return existing;
  const { config } = ctx;
  const providers = parseIdJagProviders(config.agentIdjagProviders, { allowInsecureIssuers: config.agent.allowInsecureIssuers });
  let secret: Promise<string> | null = config.serverSecret ? Promise.resolve(config.serverSecret) : null;
  const deps: AgentDeps = {
    ctx,
    mailer: createMailer(config),
    providers,
    keys: createJwksCache({ cooldownMs: config.agent.jwksCooldownMs }),
    audience: `${config.baseUrl}/api/`,
    secret() {
      if (!secret) {
        const attempt = getOrCreateSecret(ctx.db, 'code-hmac', randomBytes(32).toString('base64url'), Date.now());
        // A failed read must not be cached: the next request tries again.
        secret = attempt.catch((e: unknown) => {
          secret = null;
          throw e;
        });
      }
      return secret;
    },
  };
  built.set(ctx, deps);
  return deps;
}
