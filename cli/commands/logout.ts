/**
 * `hookcap logout`: forgets the key `hookcap login` saved, on this machine. An API key cannot
 * revoke itself (DELETE /api/api-keys takes a browser session, SPEC 4.7), so the key stays valid
 * and the output says where it is deleted. A browser session token (`ses_…`, which login takes
 * too) can end itself (POST /api/auth/logout): that is asked of the server it was saved for,
 * briefly, after the file is removed; with no answer the output says the session still works.
 */
import { createClient, HookcapError, networkReason } from '../../client/index';
import { baseUrl, forgetConfig } from '../config';
import { EXIT_OK } from '../errors';
import { out, printable } from '../output';

/** How the dashboard's key list shows a key: its first 12 characters (the stored `prefix`) and `…`. */
const shownAs = (key: string): string => `${printable(key.trim().slice(0, 12))}…`;

/** How long the server is given to end a session: logout must not hang on a server that is down. */
export const END_SESSION_TIMEOUT_MS = 3_000;

/** What became of a saved session on its server. */
type SessionEnd = { ended: true } | { ended: false; alreadyOver: true } | { ended: false; alreadyOver: false; why: string };

/** Ends the session `token` on the server at `apiUrl`: `POST /api/auth/logout` with it as the bearer. */
async function endSession(apiUrl: string, token: string): Promise<SessionEnd> {
  try {
    await createClient({ apiUrl, key: token }).raw('POST', '/api/auth/logout', { signal: AbortSignal.timeout(END_SESSION_TIMEOUT_MS) });
    return { ended: true };
  } catch (e) {
    // 401: the server no longer knows the token (expired, signed out, password changed or reset).
    if (e instanceof HookcapError && e.status === 401) return { ended: false, alreadyOver: true };
    if (e instanceof HookcapError) return { ended: false, alreadyOver: false, why: e.status === 0 ? e.message : `${apiUrl} answered ${e.status} (${e.message})` };
    if (typeof e === 'object' && e !== null && 'name' in e && e.name === 'TimeoutError') return { ended: false, alreadyOver: false, why: `${apiUrl} did not answer within ${END_SESSION_TIMEOUT_MS / 1000} s` };
    // A saved address fetch refuses (a file edited by hand), or a failure in other words.
    const lost = networkReason(e);
    return { ended: false, alreadyOver: false, why: `cannot reach ${apiUrl}: ${lost ?? (e instanceof Error ? e.message : String(e))}` };
  }
}

/** The lines about a saved session token, once the file holding it is gone. */
async function sessionLines(apiUrl: string | undefined, token: string): Promise<string[]> {
  const account = apiUrl ? `${printable(baseUrl(apiUrl))}/account` : 'the dashboard at /account';
  const end = apiUrl ? await endSession(baseUrl(apiUrl), token) : { ended: false as const, alreadyOver: false as const, why: 'no server address was saved with it' };
  if (end.ended) return ['The session is ended on the server too: it no longer works anywhere.'];
  if (end.alreadyOver) return ['The session had already ended on the server (it expired, was signed out, or the password was changed): it no longer works anywhere.'];
  // The server says nothing of when a session expires: only the rule can be given.
  return [
    `The session was not ended on the server: ${printable(end.why)}.`,
    `It still works until it expires (SESSION_TTL_MS after sign-in on that server, 30 days unless set otherwise); to end it sooner, change the password at ${account}, which signs out every other session.`,
  ];
}

export async function logout(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const gone = forgetConfig(env);
  if (!gone.removed) out(`${gone.leftovers.length > 0 ? 'No' : 'Nothing to remove: no'} key is saved (there is no ${gone.path}).`);
  else if (gone.unreadable) {
    out(`Logged out: removed ${gone.path}, which could not be read, so the key it held is not known.`);
    out('That key is not revoked and still works: to revoke it, open the dashboard at /account and delete it under API keys.');
  } else if (gone.key === undefined) out(`Logged out: removed ${gone.path} (it held no key).`);
  else {
    const where = gone.apiUrl ?? 'the server';
    const what = gone.key.trim().startsWith('ses_') ? 'session token' : 'key';
    out(`Logged out: removed the ${what} ${shownAs(gone.key)} saved for ${printable(where)} (${gone.path}).`);
    // Only a browser session may delete an API key: the CLI has none, so it can only say where.
    if (gone.key.trim().startsWith('svc_')) {
      const dashboard = gone.apiUrl ? `${printable(baseUrl(gone.apiUrl))}/account` : 'the dashboard at /account';
      out(`The key itself is not revoked and still works: to revoke it, open ${dashboard} and delete ${shownAs(gone.key)} under API keys.`);
    } else if (gone.key.trim().startsWith('ses_')) for (const line of await sessionLines(gone.apiUrl, gone.key.trim())) out(line);
    else out('The key itself is not revoked and still works until it expires or is revoked on the server.');
  }
  if (gone.leftovers.length > 0) {
    const n = gone.leftovers.length;
    out(`Also removed ${n === 1 ? 'a temp file' : `${n} temp files`} an interrupted hookcap login left beside it, which may have held a key: ${gone.leftovers.join(', ')}.`);
  }
  // Read before the saved key: removing the file changes nothing while it is set.
  if (env.HOOKCAP_API_KEY) out('HOOKCAP_API_KEY is still set in this environment, and hookcap commands still use that key: unset HOOKCAP_API_KEY to stop.');
  return EXIT_OK;
}
