/**
 * `hookcap logout`: forgets the key `hookcap login` saved, on this machine only. An API key cannot
 * revoke itself (DELETE /api/api-keys takes a browser session, SPEC 4.7), so the key stays valid
 * and the output says where it is deleted. Needs no server.
 */
import { baseUrl, forgetConfig } from '../config';
import { EXIT_OK } from '../errors';
import { out, printable } from '../output';

/** How the dashboard's key list shows a key: its first 12 characters (the stored `prefix`) and `…`. */
const shownAs = (key: string): string => `${printable(key.slice(0, 12))}…`;

export function logout(env: NodeJS.ProcessEnv = process.env): number {
  const gone = forgetConfig(env);
  if (!gone.removed) out(`${gone.leftovers.length > 0 ? 'No' : 'Nothing to remove: no'} key is saved (there is no ${gone.path}).`);
  else if (gone.unreadable) {
    out(`Logged out: removed ${gone.path}, which could not be read, so the key it held is not known.`);
    out('That key is not revoked and still works: to revoke it, open the dashboard at /account and delete it under API keys.');
  } else if (gone.key === undefined) out(`Logged out: removed ${gone.path} (it held no key).`);
  else {
    const where = gone.apiUrl ?? 'the server';
    out(`Logged out: removed the key ${shownAs(gone.key)} saved for ${printable(where)} (${gone.path}).`);
    // Only a browser session may delete an API key: the CLI has none, so it can only say where.
    if (gone.key.startsWith('svc_')) {
      const dashboard = gone.apiUrl ? `${printable(baseUrl(gone.apiUrl))}/account` : 'the dashboard at /account';
      out(`The key itself is not revoked and still works: to revoke it, open ${dashboard} and delete ${shownAs(gone.key)} under API keys.`);
    } else out('The key itself is not revoked and still works until it expires or is revoked on the server.');
  }
  if (gone.leftovers.length > 0) {
    const n = gone.leftovers.length;
    out(`Also removed ${n === 1 ? 'a temp file' : `${n} temp files`} an interrupted hookcap login left beside it, which may have held a key: ${gone.leftovers.join(', ')}.`);
  }
  // Read before the saved key: removing the file changes nothing while it is set.
  if (env.HOOKCAP_API_KEY) out('HOOKCAP_API_KEY is still set in this environment, and hookcap commands still use that key: unset HOOKCAP_API_KEY to stop.');
  return EXIT_OK;
}
