/** The server-rendered pages: the claim ceremony and its log-in page. */
import { Elysia } from 'elysia';
import type { Ctx } from '../../services/context';
import { claimPages } from './claim';
import { loginPages } from './login';

export const agentPages = (ctx: Ctx) => new Elysia().use(claimPages(ctx)).use(loginPages(ctx));
