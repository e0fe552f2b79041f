/**
 * `hookcap tail --count --timeout` as a CI script waits for one webhook among several, and what it
 * says when the server cannot be reached at all. The CLI as a subprocess against a real server.
 */
import { expect, test } from 'bun:test';
import type { Capture } from '../../src/model/capture';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';
import { cliEnv, runCli } from './support';

const cleanups = cleanupAfterAll();
function env(vars: Record<string, string>) {
  const e = cliEnv(vars);
  cleanups.push(e.cleanup);
  return e;
}

test('the server down: --timeout says the stream never connected and where it looked, exit 1', async () => {
  const e = env({ HOOKCAP_API_KEY: 'svc_x', HOOKCAP_API_URL: 'http://127.0.0.1:9' });
  const r = await runCli(['tail', 'abcdefghjkmn', '--since', '1m', '--count', '1', '--timeout', '2', '--json'], e.env);
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  const last = r.stderr.trim().split('\n').at(-1) ?? '';
  expect(last).toStartWith('error: no capture on abcdefghjkmn within 2 s: the stream never connected (cannot reach http://127.0.0.1:9');
  expect(last).toEndWith('; is hookcap running at http://127.0.0.1:9? Set the address with --api-url or HOOKCAP_API_URL');
});

describeBackends('tail --method/--path/--event', (h) => {
  test('only the matching captures are printed and counted; a timeout says how many others came', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'filter' } })).body;
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    const send = (path: string, body: string, method = 'POST', headers: Record<string, string> = {}) =>
      fetch(`${h.url}/w/${ep.slug}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: method === 'GET' ? undefined : body });
    await send('/stripe', JSON.stringify({ object: 'event', type: 'customer.created' }), 'POST', { 'stripe-signature': 't=1700000000,v1=00' });
    await send('/stripe', '', 'GET');
    await send('/other', '{}');
    await send('/stripe', '{"n":2}');
    await eventually(async () => (await call(h.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: a.key })).body.count === 4);

    const got = await runCli(['tail', ep.slug, '--since', '1h', '--method', 'post', '--path', 'stripe', '--count', '2', '--timeout', '30', '--json'], e.env);
    expect(got.code, got.stderr).toBe(0);
    const records = got.stdout.trim().split('\n').map((l) => JSON.parse(l) as Capture);
    expect(records.map((c) => `${c.method} ${c.path} ${c.body.length} ${c.detectedEvent}`)).toEqual(['POST /stripe 44 customer.created', 'POST /stripe 7 ']);

    const event = await runCli(['tail', ep.slug, '--since', '1h', '--event', 'customer.created', '--count', '1', '--timeout', '30', '--json'], e.env);
    expect(event.code, event.stderr).toBe(0);
    expect((JSON.parse(event.stdout) as Capture).id).toBe(records[0]?.id ?? '');

    const short = await runCli(['tail', ep.slug, '--since', '1h', '--path', '/other', '--count', '2', '--timeout', '2', '--json'], e.env);
    expect(short.code).toBe(1);
    expect(short.stdout.trim().split('\n').length).toBe(1);
    expect(short.stderr).toBe(`error: 1 of 2 captures matching /other on ${ep.slug} within 2 s (3 others arrived)\n`);

    const none = await runCli(['tail', ep.slug, '--since', '1h', '--method', 'DELETE', '--count', '1', '--timeout', '2'], e.env);
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain(`Watching ${ep.slug} (only DELETE)`);
    expect(none.stderr).toEndWith(`error: no capture matching DELETE on ${ep.slug} within 2 s (4 others arrived)\n`);
  });
});

describeBackends('tail --header and export --header', (h) => {
  test('only captures whose header holds the value (any case) are printed, counted and exported; several must all hold', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'headers' } })).body;
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    const send = (path: string, headers: Record<string, string>) => fetch(`${h.url}/w/${ep.slug}${path}`, { method: 'POST', headers, body: '{}' });
    await send('/push', { 'X-GitHub-Event': 'push', 'User-Agent': 'GitHub-Hookshot/1' });
    // The name and "name: value" only as a value; a value with ':' and regex characters.
    await send('/note', { 'x-note': 'x-github-event: push', 'x-pattern': 'a.b*(c):d' });
    await send('/pr', { 'x-github-event': 'pull_request', 'x-pattern': 'axb' });
    await eventually(async () => (await call(h.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: a.key })).body.count === 3);
    const paths = (stdout: string) => stdout.trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as Capture).path);

    const push = await runCli(['tail', ep.slug, '--since', '1h', '--header', 'X-GitHub-Event: PUSH', '--count', '1', '--timeout', '30', '--json'], e.env);
    expect(push.code, push.stderr).toBe(0);
    expect(paths(push.stdout)).toEqual(['/push']);
    const present = await runCli(['tail', ep.slug, '--since', '1h', '--header', 'x-github-event', '--count', '2', '--timeout', '30', '--json'], e.env);
    expect(paths(present.stdout)).toEqual(['/push', '/pr']);
    const literal = await runCli(['tail', ep.slug, '--since', '1h', '--header', 'x-pattern:.B*(c):', '--count', '1', '--timeout', '30', '--json'], e.env);
    expect(paths(literal.stdout)).toEqual(['/note']);
    const both = await runCli(
      ['tail', ep.slug, '--since', '1h', '--header', 'x-github-event:push', '--header', 'user-agent:hookshot', '--header', 'x-github-event:pu', '--count', '2', '--timeout', '2', '--json'],
      e.env,
    );
    expect(both.code).toBe(1);
    expect(paths(both.stdout)).toEqual(['/push']);
    // Said as it matches (a substring in any case), not as a regular expression (`/push/iu`).
    expect(both.stderr).toBe(
      `error: 1 of 2 captures matching header x-github-event containing "push" and "pu" in any case, header user-agent containing "hookshot" in any case on ${ep.slug} within 2 s (2 others arrived)\n`,
    );
    const said = await runCli(['tail', ep.slug, '--since', '1h', '--method', 'POST', '--header', 'x-github-event:Merge', '--header', 'stripe-signature', '--count', '1', '--timeout', '2'], e.env);
    expect(said.code).toBe(1);
    expect(said.stdout).toBe('');
    expect(said.stderr).toStartWith(`Watching ${ep.slug} (only POST, header x-github-event containing "Merge" in any case, header stripe-signature), starting at `);
    expect(said.stderr).toEndWith(`error: no capture matching POST, header x-github-event containing "Merge" in any case, header stripe-signature on ${ep.slug} within 2 s (3 others arrived)\n`);

    const exported = await runCli(['export', ep.slug, '--format', 'ndjson', '--quiet', '--header', 'x-github-event'], e.env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(paths(exported.stdout)).toEqual(['/push', '/pr']);
    const noted = await runCli(['export', ep.slug, '--format', 'ndjson', '--quiet', '--header', 'x-note:X-GitHub-Event: Push', '--header', 'x-pattern'], e.env);
    expect(paths(noted.stdout)).toEqual(['/note']);

    for (const args of [['tail', ep.slug, '--header', 'x a:b'], ['export', ep.slug, '--format', 'ndjson', '--header', ':push']]) {
      const bad = await runCli(args, e.env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toStartWith('error: --header must be name:value with name a header name');
      expect(bad.stderr).not.toContain('    at ');
    }
  });
});
