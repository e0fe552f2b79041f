import { Elysia, t } from 'elysia';
import type { Ctx } from '../../services/context';
import * as usage from '../../services/usage';
import { authMacro } from '../auth';
import { AUTH_ERRORS, errors } from './models';

export const UsageBody = t.Object({
  used: t.Integer(),
  limit: t.Integer(),
  remaining: t.Integer(),
  plan: t.String(),
  periodEnd: t.Integer(),
  retentionDays: t.Integer({ description: "Days captures are kept on this plan (docs/retention.md); pinned ones longer" }),
});

/** SPEC 4.4. */
export const usageRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: '/api', detail: { tags: ['usage'] } })
    .use(authMacro(ctx))
    .get('/usage', ({ user }) => usage.getUsage(ctx, user), {
      auth: 'account',
      response: { 200: UsageBody, ...errors(...AUTH_ERRORS) },
      detail: { summary: 'Captured requests this calendar month (UTC) against the plan quota; periodEnd is when it resets' },
    });
