/** Every /api route, in one Elysia instance. */
import { Elysia } from 'elysia';
import type { Ctx } from '../../services/context';
import { agentRoutes } from './agent';
import { sessionOnlyRoutes } from './api-keys';
import { authRoutes } from './auth';
import { endpointRoutes } from './endpoints';
import { exportRoutes } from './exports';
import { requestRoutes } from './requests';
import { sendTestRoutes } from './send-test';
import { searchRoutes } from './search';
import { usageRoutes } from './usage';
import { billingRoutes } from './billing';
import { inviteRoutes } from './invites';
import { teamRoutes } from './teams';
import { pinRoutes } from './pins';
import { byCredential, rateLimit } from '../rate-limit-plugin';

export const apiRoutes = (ctx: Ctx) =>
  new Elysia()
    // Every route below counts against its caller's API rate limit (SPEC 8); keep this first.
    .use(rateLimit(ctx, { name: 'api', rule: ctx.config.rateLimits.api, key: byCredential(ctx) }))
    .use(authRoutes(ctx)).use(sessionOnlyRoutes(ctx)).use(endpointRoutes(ctx)).use(requestRoutes(ctx)).use(exportRoutes(ctx)).use(sendTestRoutes(ctx)).use(searchRoutes(ctx)).use(usageRoutes(ctx))
    .use(agentRoutes(ctx))
    .use(pinRoutes(ctx))
    .use(teamRoutes(ctx)).use(inviteRoutes(ctx)).use(billingRoutes(ctx));

/** The API's type, for typed clients (Eden Treaty in web/ and client/): a renamed field breaks their build. */
export type ApiApp = ReturnType<typeof apiRoutes>;
