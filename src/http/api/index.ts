/** Every /api route, in one Elysia instance. */
import { Elysia } from 'elysia';
import type { Ctx } from '../../services/context';
import { sessionOnlyRoutes } from './api-keys';
import { authRoutes } from './auth';
import { endpointRoutes } from './endpoints';
import { requestRoutes } from './requests';

export const apiRoutes = (ctx: Ctx) =>
  new Elysia().use(authRoutes(ctx)).use(sessionOnlyRoutes(ctx)).use(endpointRoutes(ctx)).use(requestRoutes(ctx));
