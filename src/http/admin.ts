/**
 * The operator API, `/admin/api` (docs/operations.md): what scripts/admin.ts asks a running node,
 * because an embedded node's PGlite cannot be opened by a second process. Mounted only when
 * ADMIN_TOKEN is set; every call carries it as a bearer token. Not in the public API docs.
 */
import { Type } from '@sinclair/typebox';
import { Elysia, t } from 'elysia';
import type { Config } from '../config';
import { AppError } from '../errors';
import type { Health } from '../health';
import { ADMIN_STATUSES, getSubscription, publicSubscription, setSubscription, type AdminStatus } from '../services/billing';
import { backupEmbedded, type BackupSource } from '../services/backup';
import type { Ctx } from '../services/context';
import { readLogBacklog } from '../services/log-backlog';
import { getPlan, setPlan } from '../services/plans';
import type { SweepResult } from '../services/retention';
import { bearer } from './auth';
import { tokenCheck } from './token-check';

export interface AdminDeps {
  ctx: Pick<Ctx, 'db' | 'bus' | 'clock'> & { config: Config };
  /** The same report as /healthz. */
  health: () => Health;
  backup: BackupSource;
  /** One retention sweep now (the node's own sweeper's, when it runs one). */
  retention: () => Promise<SweepResult>;
}

const hidden = { hide: true } as const;

export const adminRoutes = (deps: AdminDeps, token: string) => {
  const matches = tokenCheck(token);
  const { ctx } = deps;
  const planCtx = { db: ctx.db, plans: ctx.config.plans };
  return (
    new Elysia({ name: 'admin-api', prefix: '/admin/api', detail: hidden })
      // Transform runs before body validation: a caller without the token learns nothing, not even the shape.
      .onTransform(({ request }) => {
        if (!matches(bearer(request.headers.get('authorization') ?? undefined))) {
          throw new AppError('unauthorized', 'the operator API needs Authorization: Bearer <ADMIN_TOKEN>', { 'www-authenticate': 'Bearer realm="hookcap-admin"' });
        }
      })
      .get('/health', () => ({ pid: process.pid, health: deps.health() }))
      .get('/backlog', () => {
        const health = deps.health();
        return {
          shipper: health.shipper,
          log: ctx.config.roles.has('receiver') ? readLogBacklog(ctx.config.dataDir) : null,
        };
      })
      .get('/accounts/:account/plan', ({ params }) => getPlan(planCtx, params.account))
      .put('/accounts/:account/plan', ({ params, body }) => setPlan(planCtx, { account: params.account, plan: body.plan }), {
        body: t.Object({ plan: t.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
      })
      .get('/teams/:teamId/subscription', async ({ params }) => {
        const sub = await getSubscription(ctx, params.teamId);
        return { teamId: params.teamId, ...publicSubscription(sub), source: sub?.source ?? null };
      })
      .put(
        '/teams/:teamId/subscription',
        async ({ params, body }) => {
          const sub = await setSubscription(ctx, { teamId: params.teamId, seats: body.seats, status: body.status as AdminStatus });
          return { teamId: sub.teamId, ...publicSubscription(sub), source: sub.source };
        },
        {
          body: t.Object(
            // TypeBox's Integer: Elysia's would also take the text "4e2" as 400 seats.
            { seats: Type.Integer({ minimum: 0, maximum: 100_000 }), status: t.Union(ADMIN_STATUSES.map((s) => t.Literal(s))) },
            { additionalProperties: false },
          ),
        },
      )
      .post('/retention', () => deps.retention())
      .post('/backup', async ({ body }) => backupEmbedded(deps.backup, body.dir), {
        body: t.Object({ dir: t.String({ minLength: 1, maxLength: 4096 }) }, { additionalProperties: false }),
      })
  );
};
