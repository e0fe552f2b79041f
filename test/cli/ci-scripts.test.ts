/**
 * The CLI as CI jobs and shell scripts use it: endpoints that expire by themselves
 * (`endpoints create --expires`), and `endpoints newest` to wait for the webhook a step triggers
 * without comparing clocks. The real binary as a subprocess (and inside bash, as a script runs
 * it) against a real server on both backends.
 */
import { expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Capture } from '../../src/model/capture';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';
import { CLI, cliEnv, runCli, type CliEnv } from './support';

const cleanups = cleanupAfterAll();
function env(vars: Record<string, string> = {}): CliEnv {
  const e = cliEnv(vars);
  cleanups.push(e.cleanup);
  return e;
}

test('--expires takes 1m to 30d written as the time options write durations; anything else is a usage error, nothing sent', async () => {
  // An address where nothing listens: a usage error stops before any call.
  const e = env({ HOOKCAP_API_KEY: 'svc_x', HOOKCAP_API_URL: 'http://127.0.0.1:9' });
  for (const [value, message] of [
    ['30s', '--expires must be from 1m to 30d, got "30s"'],
    ['31d', '--expires must be from 1m to 30d, got "31d"'],
    ['5w', '--expires must be from 1m to 30d, got "5w"'],
    ['2 hours', '--expires must be a duration such as 30m, 2h, 1d or 1w, got "2 hours"'],
    ['1.5h', '--expires must be a duration such as 30m, 2h, 1d or 1w, got "1.5h"'],
  ]) {
    const r = await runCli(['endpoints', 'create', 'ci', '--expires', value ?? ''], e.env);
    expect(r.code, value).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: ${message}; add --help for usage\n`);
  }
  const newest = await runCli(['endpoints', 'newest', 'not a slug'], e.env);
  expect(newest.code).toBe(2);
});

describeBackends('hookcap in CI scripts', (h) => {
  async function account() {
    const a = await newAccount(h.url);
    return { ...a, cli: env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key }) };
  }

  test('endpoints create --expires: the endpoint has expiresAt; create and list say when (UTC), never for the others', async () => {
    const a = await account();
    const made = await runCli(['endpoints', 'create', 'ci-run-7', '--expires', '2h', '--json'], a.cli.env);
    expect(made.code, made.stderr).toBe(0);
    const ep = JSON.parse(made.stdout) as { slug: string; url: string; createdAt: number; expiresAt: number };
    expect(ep.expiresAt).toBe(ep.createdAt + 2 * 3600_000);
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

    const day = await runCli(['endpoints', 'create', 'nightly', '--expires', '1d'], a.cli.env);
    expect(day.code, day.stderr).toBe(0);
    const m = /^Created ([a-z0-9]{12}) \(nightly, expires (\S+Z)\): send webhooks to (\S+)\n$/.exec(day.stdout);
    expect(m, day.stdout).not.toBeNull();
    const daySlug = m?.[1] ?? '';
    const dayEp = (await call<{ expiresAt: number; createdAt: number; url: string }>(h.url, 'GET', `/api/endpoints/${daySlug}`, { token: a.key })).body;
    expect(dayEp.expiresAt).toBe(dayEp.createdAt + 86_400_000);
    expect(m?.[2]).toBe(iso(dayEp.expiresAt));
    expect(m?.[3]).toBe(dayEp.url);

    const kept = await runCli(['endpoints', 'create', 'kept'], a.cli.env);
    expect(kept.stdout).toStartWith('Created ');
    expect(kept.stdout).not.toContain('expires');

    const list = await runCli(['endpoints', 'list'], a.cli.env);
    expect(list.code).toBe(0);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SLUG\s+NAME\s+COUNT\s+LAST\s+EXPIRES\s+URL$/);
    expect(lines[1]).toMatch(new RegExp(`^${ep.slug}\\s+ci-run-7\\s+0\\s+-\\s+${iso(ep.expiresAt)}\\s+${ep.url}$`));
    expect(lines[2]).toMatch(new RegExp(`^${daySlug}\\s+nightly\\s+0\\s+-\\s+${iso(dayEp.expiresAt)}\\s+`));
    expect(lines[3]).toMatch(/^[a-z0-9]{12}\s+kept\s+0\s+-\s+never\s+http/);
    const json = JSON.parse((await runCli(['endpoints', 'list', '--json'], a.cli.env)).stdout) as { expiresAt: number | null }[];
    expect(json.map((e) => e.expiresAt)).toEqual([ep.expiresAt, dayEp.expiresAt, null]);
  });

  test('endpoints newest: nothing and exit 3 without captures; the newest id (after a clear: of what is left) and exit 0; exit 1 for an unknown slug', async () => {
    const a = await account();
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'newest' } })).body;
    const empty = await runCli(['endpoints', 'newest', ep.slug], a.cli.env);
    expect(empty).toEqual({ code: 3, stdout: '', stderr: '' });

    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await fetch(`${ep.url}/n${n}`, { method: 'POST', body: `${n}` })).headers.get('x-request-id') ?? '');
    await eventually(async () => (await call<{ count: number }>(h.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: a.key })).body.count === 3);
    const got = await runCli(['endpoints', 'newest', ep.url], a.cli.env);
    expect(got).toEqual({ code: 0, stdout: `${ids[2]}\n`, stderr: '' });

    expect((await call(h.url, 'DELETE', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).status).toBe(204);
    expect((await runCli(['endpoints', 'newest', ep.slug], a.cli.env)).code).toBe(3);

    const unknown = await runCli(['endpoints', 'newest', 'zzzzzzzzzzzz'], a.cli.env);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain('endpoint not found');
  });

  test('the script in endpoints newest --help: waits for the webhook it triggers, never an earlier one, with and without earlier captures', async () => {
    const a = await account();
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'script' } })).body;
    const script = join(a.cli.configHome, 'wait.sh');
    // As a CI step writes it; `hookcap` is the real binary.
    writeFileSync(
      script,
      [
        'set -u',
        `hookcap() { "${process.execPath}" "${CLI}" "$@"; }`,
        'since=$(hookcap endpoints newest "$SLUG") || [ $? -eq 3 ] || exit 1',
        'curl -s -o /dev/null -X POST --data "$BODY" "$URL/triggered"',
        'hookcap tail "$SLUG" --since "${since:-0}" --count 1 --timeout 30 --json',
      ].join('\n'),
    );
    const run = async (body: string) => {
      const proc = Bun.spawn(['bash', script], { env: { ...a.cli.env, SLUG: ep.slug, URL: ep.url, BODY: body }, stdout: 'pipe', stderr: 'pipe' });
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      return { stdout, stderr, code };
    };
    // No capture yet: newest exits 3, the script goes on from the beginning.
    const first = await run('first');
    expect(first.code, first.stderr).toBe(0);
    expect((JSON.parse(first.stdout) as Capture).body).toBe('first');
    // Earlier captures, stored before the step: the one the step triggers is the one it gets.
    await fetch(ep.url, { method: 'POST', body: 'earlier' });
    await eventually(async () => (await call<{ count: number }>(h.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: a.key })).body.count === 2);
    const second = await run('second');
    expect(second.code, second.stderr).toBe(0);
    const record = JSON.parse(second.stdout) as Capture;
    expect([record.body, record.path]).toEqual(['second', '/triggered']);
  });
});
