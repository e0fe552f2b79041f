/**
 * An operator sets an account's plan (docs/operations.md): the admin command or /admin/api. Plans
 * are the names in PLANS; receivers pick the new quota up on their next usage read (USAGE_FLUSH_MS).
 */
import { AppError } from '../errors';
import { resolvePlan } from '../model/usage';
import { findUserByEmail, findUserById, updateUserPlan } from '../stores/state/accounts';
import type { UserRow } from '../stores/state/schema';
import type { Ctx } from './context';

export type PlanCtx = { db: Ctx['db']; plans: Ctx['config']['plans'] };

export interface AccountPlan {
  userId: string;
  email: string;
  plan: string;
  limit: number;
}

const view = (ctx: PlanCtx, u: UserRow): AccountPlan => {
  const plan = resolvePlan(ctx.plans, u.plan);
  return { userId: u.id, email: u.email, plan: plan.name, limit: plan.limit };
};

/** An account by its id (`usr_…`) or its email address. */
async function findAccount(ctx: PlanCtx, account: string): Promise<UserRow> {
  const user = account.startsWith('usr_') ? await findUserById(ctx.db, account) : await findUserByEmail(ctx.db, account);
  if (!user) throw new AppError('not_found', `no account ${account}`);
  return user;
}

export async function getPlan(ctx: PlanCtx, account: string): Promise<AccountPlan> {
  return view(ctx, await findAccount(ctx, account));
}

export async function setPlan(ctx: PlanCtx, input: { account: string; plan: string }): Promise<AccountPlan> {
  if (!Object.hasOwn(ctx.plans, input.plan)) throw new AppError('validation', `plan must be one of ${Object.keys(ctx.plans).join(', ')} (PLANS), got "${input.plan}"`);
  const user = await findAccount(ctx, input.account);
  const updated = await updateUserPlan(ctx.db, user.id, input.plan);
  if (!updated) throw new AppError('not_found', `no account ${input.account}`);
  return view(ctx, updated);
}
