/** `hookcap login` and `hookcap endpoints list | create | delete | newest`. */
import { HookcapError, type Endpoint, type EndpointActivity, type HookcapClient } from '../../client/index';
import { apiClient, saveConfig, type Settings } from '../config';
import { CliError, EXIT_EMPTY, EXIT_FAILURE, EXIT_OK, notHookcap, UsageError } from '../errors';
import { pad, widthOf } from '../columns';
import { ask, askSecret, canAsk, count } from '../prompt';
import { err, out, paint, printable, type Style } from '../output';

/** Checks the key against the API, then saves it and the API URL to the config file (mode 0600). */
export async function login(given: Settings): Promise<number> {
  let settings = given;
  if (!settings.key || settings.sources.key === 'file') {
    // Typed at a prompt, unseen, the key stays out of the shell's history; a script or CI job is
    // never left waiting on one.
    if (!canAsk() || process.env.CI) {
      throw new UsageError('login needs a key', 'hookcap login --key svc_…, or the key on stdin: … | hookcap login --key - (create one in the dashboard or with POST /api/api-keys)');
    }
    const typed = await askSecret('API key (svc_…; not shown): ');
    if (typed === '') throw new UsageError('no key was typed; nothing was saved', 'create one in the dashboard (Account, API keys), then hookcap login again');
    settings = { ...settings, key: typed, sources: { ...settings.sources, key: 'flag' } };
  }
  const key = settings.key as string;
  // Its answer is checked (cli/api-answers.ts): an account with an email, or nothing is saved.
  const me = await apiClient(settings.apiUrl, key)
    .me()
    .catch((e: unknown) => {
      if (e instanceof HookcapError && e.code === 'not_hookcap') throw e;
      // Something answered, but not hookcap: a wrong port (the local app), a path, another site.
      if ((e instanceof HookcapError && e.status === 404) || e instanceof SyntaxError) throw notHookcap(settings.apiUrl);
      // Every other command's hint says where a valid key goes (--key, HOOKCAP_API_KEY, login);
      // here the key was just given to login, so it can only say the key itself is wrong.
      if (e instanceof HookcapError && e.code === 'unauthorized') {
        throw new CliError(
          `the API key was refused (${e.message}); nothing was saved`,
          'check that it is the whole key, as shown once when it was made, or create a new one in the dashboard (Account, API keys), then hookcap login --key svc_… again',
        );
      }
      throw e;
    });
  const path = saveConfig(settings.apiUrl, key);
  out(`Logged in to ${settings.apiUrl} as ${me.email}. Saved to ${path}.`);
  return EXIT_OK;
}

/**
 * Columns as wide as their widest cell, in terminal columns: a name in CJK or with an emoji keeps
 * the next columns in line. Columns in `right` (numbers) line up on their last digit.
 */
function table(rows: string[][], right: ReadonlySet<number> = new Set()): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => widthOf(r[i] ?? '')))) ?? [];
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : pad(cell, widths[i] ?? 0, right.has(i)))).join('  '));
}

/** When an endpoint expires, in UTC to the second (ISO 8601), or `never`. */
const expiry = (e: Endpoint): string => (e.expiresAt === null ? 'never' : new Date(e.expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z'));

/** How long ago, short for a table: `just now`, `42s ago`, `3m ago`, `5h ago`, `2d ago`. */
export function ago(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 5) return 'just now';
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86_400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86_400)}d ago`;
}

/**
 * Each endpoint's activity by slug, or null when the server has no such route (a server older than
 * this CLI answers 404 `no route`): the list is still worth printing, without it.
 */
async function activityBySlug(client: HookcapClient): Promise<Map<string, EndpointActivity> | null> {
  try {
    return new Map((await client.endpoints.activity()).map((a) => [a.slug, a]));
  } catch (e) {
    if (e instanceof HookcapError && e.status === 404) return null;
    throw e;
  }
}

/**
 * SLUG NAME COUNT LAST EXPIRES URL (the URL last, for a script that takes the last word); COUNT
 * and LAST from `GET /api/endpoints/activity`, read together with the list. `-` in LAST: no
 * capture; `?`: the server did not say (an endpoint past the route's bound, an older server).
 * `--json` adds `count` and `lastReceivedAt` (null where `?`) to each endpoint.
 */
export async function listEndpoints(client: HookcapClient, json: boolean, style: Style): Promise<number> {
  const [endpoints, activity] = await Promise.all([client.endpoints.list(), activityBySlug(client)]);
  const withActivity = endpoints.map((e) => {
    const a = activity?.get(e.slug);
    return { ...e, count: a?.count ?? null, lastReceivedAt: a?.lastReceivedAt ?? null };
  });
  if (json) {
    out(JSON.stringify(withActivity, null, 2));
    return EXIT_OK;
  }
  if (endpoints.length === 0) {
    err('No endpoints yet: hookcap endpoints create NAME');
    return EXIT_OK;
  }
  const now = Date.now();
  const last = (e: (typeof withActivity)[number]) => (e.count === null ? '?' : e.lastReceivedAt === null ? '-' : ago(e.lastReceivedAt, now));
  const [head, ...rest] = table(
    [
      ['SLUG', 'NAME', 'COUNT', 'LAST', 'EXPIRES', 'URL'],
      ...withActivity.map((e) => [e.slug, printable(e.name), e.count === null ? '?' : String(e.count), last(e), expiry(e), e.url]),
    ],
    new Set([2]),
  );
  out(paint(style, 'bold', head ?? ''));
  for (const line of rest) out(line);
  return EXIT_OK;
}

/** `expiresIn`: seconds (from --expires) until the endpoint and its captures are deleted. */
export async function createEndpoint(client: HookcapClient, name: string, opts: { json: boolean; expiresIn?: number }): Promise<number> {
  const ep: Endpoint = await client.endpoints.create(name, { expiresIn: opts.expiresIn });
  if (opts.json) out(JSON.stringify(ep, null, 2));
  // The URL stays last on the line, for a script that takes the last word.
  else out(`Created ${ep.slug} (${printable(ep.name)}${ep.expiresAt === null ? '' : `, expires ${expiry(ep)}`}): send webhooks to ${ep.url}`);
  return EXIT_OK;
}

/**
 * The id of the endpoint's newest capture, alone on stdout, for `since=$(hookcap endpoints newest
 * SLUG)` before triggering a webhook, then `tail --since "$since"`: no clocks compared. None yet:
 * nothing printed, exit 3 (EXIT_EMPTY), so a script tells "no capture" from a failure (exit 1).
 */
export async function newestCapture(client: HookcapClient, slug: string): Promise<number> {
  const [newest] = await client.requests.list(slug, { limit: 1 });
  if (!newest) return EXIT_EMPTY;
  out(newest.id);
  return EXIT_OK;
}

/**
 * Deletes an endpoint and its captures, which cannot be undone: on a terminal after a y; elsewhere
 * only with --yes (a script that forgot it is a usage error before anything is sent).
 */
export async function deleteEndpoint(client: HookcapClient, slug: string, opts: { json: boolean; yes: boolean }): Promise<number> {
  const { json } = opts;
  if (!opts.yes) {
    if (!canAsk()) {
      throw new UsageError(`endpoints delete ${slug} needs --yes when stdin is not a terminal; nothing was deleted`, 'add -y (--yes) to delete the endpoint and all its captures without asking');
    }
    const [ep, captures] = await Promise.all([client.endpoints.get(slug), client.count({ slug })]);
    const answer = await ask(`Delete endpoint ${slug} (${printable(ep.name)}) and its ${count(captures)} capture${captures === 1 ? '' : 's'}? This cannot be undone. [y/N] `);
    if (answer !== 'y' && answer !== 'yes') {
      err('Not deleted.');
      return EXIT_FAILURE;
    }
  }
  await client.endpoints.delete(slug);
  if (json) out(JSON.stringify({ deleted: slug }));
  else out(`Deleted ${slug} and its captures.`);
  return EXIT_OK;
}
