/**
 * The one place the long-lived parts behind the verbs are made: the mailer, the server secrets,
 * the agent dependencies and the stream guards (with their bus subscriptions). app.ts calls it once per
 * service and calls `close` at shutdown; tests that drive verbs directly call it the same way.
 *
 * @example
 * const services = createServices({ config, db, captures, bus, clock: systemClock });
 * await inviteMember(services.ctx, owner, teamId, 'ada@example.com');
 * await services.close();
 */
import { createMailer } from '../mail';
import { createAgentDeps, type AgentDeps } from './agent/deps';
import type { BaseCtx, Ctx } from './context';
import { createBackground } from './background';
import { createServerSecrets } from './secrets';
import { createStreamGuards } from './stream/guards';

export interface Services {
  ctx: Ctx;
  /** Drops the bus subscriptions, waits for background mails and closes the mailer. The stores and the bus are the caller's. */
  close(): Promise<void>;
}

export function createServices(base: BaseCtx): Services {
  const mailer = createMailer(base.config);
  const streams = createStreamGuards(base);
  // The agent dependencies hold the ctx they belong to (the agent verbs take only them).
  let agent: AgentDeps | null = null;
  const ctx: Ctx = {
    ...base,
    mailer,
    streams,
    secrets: createServerSecrets(base),
    background: createBackground(),
    get agent(): AgentDeps {
      if (!agent) throw new Error('agent dependencies read before createServices returned');
      return agent;
    },
  };
  agent = createAgentDeps(ctx);
  return {
    ctx,
    async close() {
      streams.close();
      // Mails started after their answer (password reset) go out before the mailer closes.
      await ctx.background.settle();
      await mailer.close();
    },
  };
}
