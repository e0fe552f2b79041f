/**
 * The claim ceremony pages (SPEC 4.8): `/agent/claim?token=<claim_token>` (the link the agent
 * shows) and `/agent/claim` (type the user code). Both show who is asking and what the key will
 * be allowed to do, and end at a confirm button and a deny button that post to the same verbs as
 * the API (confirm, deny).
 */
import { Elysia } from 'elysia';
import { AppError } from '../../errors';
import { confirmClaim, denyClaim, previewClaim, type ClaimPreview } from '../../services/agent/claim';
import { agentDeps } from '../../services/agent/deps';
import type { ClaimRef } from '../../services/agent/input';
import { RateMeter } from '../../services/agent/rate-meter';
import type { Ctx } from '../../services/context';
import type { UserRow } from '../../stores/state/schema';
import { paths } from '../../../web/src/paths';
import { rawText } from '../api/agent';
import { clientIp } from '../client-ip';
import type { CookieJar } from '../auth';
import { html, isSameOriginPost, page, readForm, redirect, sessionUser } from './html';

/** What each scope lets the key do, in words for the person deciding. */
const SCOPE_WORDS: Record<string, string> = {
  'webhooks:read': 'list your endpoints and read every request they capture',
  'webhooks:write': 'create, change and delete your endpoints and clear their captured requests',
};

const FAILURE_WORDS: Partial<Record<AppError['code'], string>> = {
  invalid_claim_token: 'This claim link or code does not match any agent waiting to be connected. Check it and try again.',
  claim_expired: 'This request has expired. Ask the agent to register again and use its new link or code.',
  previously_claimed: 'This agent has already been connected to an account.',
  claim_denied: 'This agent was refused: its key no longer works. If that was a mistake, ask the agent to register again.',
  too_many_keys: 'Your account already holds the maximum number of API keys. Delete one on your account page, then try again.',
  rate_limited: 'Too many attempts. Wait a few minutes and try again.',
};

/** The way on from the end of the ceremony, which is otherwise a dead end. */
const onward = html`<p><a href="${paths.home}">Go to your endpoints</a></p>`;

function failurePage(e: AppError, user: UserRow): Response {
  const text = FAILURE_WORDS[e.code] ?? e.message;
  return page(
    'Cannot connect agent',
    html`<h1>Cannot connect this agent</h1><p class="error" role="alert" data-code="${e.code}">${text}</p>
<p><a href="/agent/claim">Enter a code</a></p><p class="muted">Signed in as ${user.email}.</p>`,
    e.status,
  );
}

/** The code form; after a refusal, with the code as typed, so the visitor can check it. */
function codeForm(user: UserRow, error: string | null = null, status = 200, code = ''): Response {
  return page(
    'Connect an agent',
    html`<h1>Connect an AI agent</h1>
<p>Type the code your agent showed you.</p>${error ? html`<p class="error" role="alert">${error}</p>` : null}
<form method="get" action="/agent/claim" id="code-form" aria-label="Agent code">
<label for="code">Code</label><input id="code" name="code" value="${code}" placeholder="XXXX-XXXX" autocomplete="off" autocapitalize="characters" required>
<button type="submit">Continue</button></form>
<p class="muted">Signed in as ${user.email}.</p>`,
    status,
  );
}

function confirmPage(user: UserRow, preview: ClaimPreview, field: 'claim_token' | 'user_code', value: string): Response {
  const scopes = preview.scopes.map((s) => html`<li><code>${s}</code>: ${SCOPE_WORDS[s] ?? s}</li>`);
  const sandbox =
    preview.sandboxEndpoints > 0
      ? html`<p>Its ${preview.sandboxEndpoints} sandbox endpoint${preview.sandboxEndpoints === 1 ? '' : 's'} will become endpoints of your account.</p>`
      : null;
  return page(
    'Connect an agent',
    html`<h1>Connect an AI agent to your account</h1>
<p>An agent calling itself <strong id="client-name">${preview.clientName}</strong> asks to use your hookcap account <strong>${user.email}</strong>.</p>
<p>If you confirm, its API key will be allowed to:</p><ul id="scopes">${scopes}</ul>
<p id="whole-api">Like every hookcap API key, it is not limited to these: it can use the whole API as you, except what needs a browser session (creating or deleting API keys, deleting your account). That includes your teams: it can accept your team invites, share your endpoints with your teams, invite and remove members, and delete teams you own.</p>${sandbox}
<p>Confirm only if you started this agent yourself. This request expires at ${new Date(preview.expiresAt).toISOString()}.</p>
<form method="post" action="/agent/claim" id="confirm-form" aria-label="Confirm"><input type="hidden" name="${field}" value="${value}">
<button type="submit" id="confirm">Confirm and connect</button></form>
<p>If you did not start this agent, or do not want it in your account, deny it: its key stops working at once and its sandbox endpoints end.</p>
<form method="post" action="/agent/claim/deny" id="deny-form" aria-label="Deny"><input type="hidden" name="${field}" value="${value}">
<button type="submit" id="deny">Deny this agent</button></form>
<p><a href="/agent/claim">Cancel</a> (decide later: the agent keeps waiting until the request expires)</p>`,
  );
}

function loginRedirect(request: Request): Response {
  const url = new URL(request.url);
  return redirect(`/agent/login?next=${encodeURIComponent(`${url.pathname}${url.search}`)}`);
}

export const claimPages = (ctx: Ctx) => {
  const deps = agentDeps(ctx);
  type Server = Parameters<typeof clientIp>[1];
  const callerOf = (request: Request, server: Server) => ({ ip: clientIp(request, server, ctx.config.trustProxy), meter: new RateMeter(ctx) });

  /** The claim reference of a confirm or deny form post: one of its two hidden fields. */
  const formRef = (form: URLSearchParams): ClaimRef | null => {
    const token = form.get('claim_token');
    const code = form.get('user_code');
    return token ? { claimToken: token } : code ? { userCode: code } : null;
  };

  /**
   * A confirm or deny form post: signed in, sent from this site, naming a claim. The verb's answer
   * is the page; its refusal (an AppError) the failure page.
   */
  const formPost =
    (act: (user: UserRow, ref: ClaimRef, caller: ReturnType<typeof callerOf>) => Promise<Response>) =>
    async ({ request, cookie, body, server }: { request: Request; cookie: CookieJar; body: unknown; server: Server }) => {
      const user = await sessionUser(ctx, cookie);
      if (!user) return redirect('/agent/claim');
      if (!isSameOriginPost(ctx, request)) return failurePage(new AppError('invalid_request', 'This form must be sent from this site.'), user);
      const ref = formRef(readForm(body));
      if (!ref) return codeForm(user, 'Enter the code your agent showed you.', 400);
      try {
        return await act(user, ref, callerOf(request, server));
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        return failurePage(e, user);
      }
    };

  return new Elysia({ detail: { tags: ['pages'], hide: true } })
    .get('/agent/claim', async ({ request, cookie, server, query }) => {
      const user = await sessionUser(ctx, cookie);
      if (!user) return loginRedirect(request);
      const ref: ClaimRef | null = query.token ? { claimToken: query.token } : query.code ? { userCode: query.code } : null;
      if (!ref) return codeForm(user);
      try {
        const preview = await previewClaim(deps, ref, callerOf(request, server));
        return 'claimToken' in ref ? confirmPage(user, preview, 'claim_token', ref.claimToken) : confirmPage(user, preview, 'user_code', ref.userCode);
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        // A mistyped code deserves the form again, not a dead end.
        if ('userCode' in ref && e.code === 'invalid_claim_token') return codeForm(user, FAILURE_WORDS.invalid_claim_token, e.status, ref.userCode);
        return failurePage(e, user);
      }
    })
    .post(
      '/agent/claim',
      formPost(async (user, ref, caller) => {
        const out = await confirmClaim(deps, user, ref, caller);
        return page(
          'Agent connected',
          html`<h1>Agent connected</h1><p class="ok" role="status" id="claimed"><strong>${out.client_name}</strong> is now connected to ${user.email}.</p>
<p>Its key can now ${out.scopes.map((s) => SCOPE_WORDS[s] ?? s).join(', and ')}. You can see and delete it among <a href="${paths.account}">your API keys</a>.</p>${onward}`,
        );
      }),
      { parse: rawText },
    )
    .post(
      '/agent/claim/deny',
      formPost(async (user, ref, caller) => {
        const out = await denyClaim(deps, user, ref, caller);
        const ended = out.endpoints_ended > 0 ? html` Its ${out.endpoints_ended} sandbox endpoint${out.endpoints_ended === 1 ? '' : 's'} ended with it.` : null;
        return page(
          'Agent denied',
          html`<h1>Agent denied</h1><p class="ok" role="status" id="denied"><strong>${out.client_name}</strong> was refused and not connected to ${user.email}.</p>
<p>Its key no longer works.${ended} The agent is told when it next checks.</p>${onward}`,
        );
      }),
      { parse: rawText },
    );
};
