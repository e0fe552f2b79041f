import { Elysia, t } from 'elysia';
import type { Ctx } from '../../services/context';
import { receiverTarget, SEND_TEST_DEFAULTS, sendTest } from '../../services/send-test';
import { authMacro } from '../auth';
import { AUTH_ERRORS, errors } from './models';

const SendTestBody = t.Object({
  slug: t.String({ minLength: 1, maxLength: 100 }),
  method: t.Optional(t.String({ minLength: 1, maxLength: 32, description: `Default ${SEND_TEST_DEFAULTS.method}` })),
  headers: t.Optional(t.Record(t.String(), t.String(), { description: 'Default none (user-agent and content-type are filled in). Values are text, sent as their UTF-8 bytes (as curl -H); line breaks and control characters are refused' })),
  body: t.Optional(t.String({ description: 'Default a small JSON test event; must be empty for GET and HEAD' })),
});

const SendTestReply = t.Object({
  id: t.Union([t.String(), t.Null()], { description: 'Captured request id; null when the receiver did not capture it' }),
  url: t.String(),
  response: t.Object({ status: t.Integer(), headers: t.Record(t.String(), t.String()), body: t.String() }),
});

export const sendTestRoutes = (ctx: Ctx) => {
  const allow = ctx.config.outboundAllow;
  return new Elysia({ prefix: '/api', detail: { tags: ['requests'] } }).use(authMacro(ctx)).post(
    '/send-test',
    ({ user, body, server }) =>
      sendTest(ctx, user, body, receiverTarget(ctx.config, server?.port ?? null), allow),
    {
      auth: 'account',
      body: SendTestBody,
      response: { 200: SendTestReply, ...errors(400, ...AUTH_ERRORS, 404, 502) },
      detail: { summary: "Send a test webhook to one of your endpoints through the receiver; returns the captured id and the receiver's response" },
    },
  );
};
