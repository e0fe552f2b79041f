/**
 * hookcap/client refuses what it cannot honour, at the call, before it waits: a misspelt matcher
 * or option key (JS callers have no type check, and an ignored key made a matcher match
 * everything, a test pass falsely), a timeout that is no number of ms. And it takes what people
 * paste or type: the `…/api` address the server prints, a path without its `/`. An unclaimed agent
 * key's refused wait says what to use instead. Real server, both backends.
 */
import { expect, test } from 'bun:test';
import { createClient, describeMatcher, HookcapError, matches, registerAnonymous, waitForClaim, type HookcapClient } from 'hookcap/client';
import { AGENT_ENV } from '../behaviour/agent-support';
import { newAccount } from '../support/client';
import { describeBackends } from '../support/suite';

describeBackends(
  'hookcap/client input checks',
  (h) => {
    /** A client whose fetch counts the requests it makes (the real fetch does the work). */
    async function counted(apiUrl = h.url): Promise<{ c: HookcapClient; calls: () => number }> {
      const key = (await newAccount(h.url)).key;
      let calls = 0;
      const c = createClient({
        apiUrl,
        key,
        fetch: ((input: string | URL | Request, init?: RequestInit) => {
          calls++;
          return fetch(input, init);
        }) as typeof fetch,
      });
      return { c, calls: () => calls };
    }
    const sends = async (url: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
      const r = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      expect(r.status).toBe(200);
      return r.headers.get('x-request-id') ?? '';
    };
    const refusal = async (p: Promise<unknown>): Promise<HookcapError> => {
      const e = await p.then(
        (v) => v,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(HookcapError);
      return e as HookcapError;
    };
    const KNOWN = 'known: method, path, query, headers, json, provider, event, signatureVerified';

    test('a misspelt matcher key is a validation error naming it and the known keys, before any request; it never matches another capture', async () => {
      const { c, calls } = await counted();
      const ep = await c.endpoints.create('typos');
      const failed = await sends(ep.url, '/stripe', { type: 'charge.failed' }, { 'stripe-signature': 't=1,v1=x' });
      await sends(ep.url, '/stripe', { type: 'charge.failed' });
      // The captures are there to be (wrongly) matched: a wait from the start finds the first at once.
      expect((await c.waitForRequest(ep.slug, { path: '/stripe' }, { since: 0, timeout: 10_000 })).id).toBe(failed);

      const before = calls();
      const evnt = await refusal(c.waitForRequest(ep.slug, { evnt: 'invoice.paid' } as never, { since: 0, timeout: 10_000 }));
      expect(evnt).toMatchObject({ status: 0, code: 'validation' });
      expect(evnt.message).toBe(`unknown matcher key "evnt" (${KNOWN})`);
      const jsn = await refusal(c.waitForRequest(ep.slug, { jsn: { type: 'invoice.paid' } } as never, { since: 0, timeout: 10_000 }));
      expect(jsn.message).toBe(`unknown matcher key "jsn" (${KNOWN})`);
      const upper = await refusal(c.waitForRequests(ep.slug, { Method: 'DELETE' } as never, { since: 0, count: 1, timeout: 10_000 }));
      expect(upper.message).toBe(`unknown matcher key "Method" (${KNOWN})`);
      const none = await refusal(c.expectNoRequest(ep.slug, { evnt: 'charge.failed' } as never, { since: 0, within: 1_000 }));
      expect(none.message).toBe(`unknown matcher key "evnt" (${KNOWN})`);
      // A field of the wrong type fails there too, rather than matching nothing until the timeout.
      expect((await refusal(c.waitForRequest(ep.slug, { method: 7 } as never, { since: 0 }))).message).toBe('matcher method takes a string, got 7');
      expect((await refusal(c.waitForRequest(ep.slug, { headers: { 'x-a': 1 } } as never, { since: 0 }))).message).toBe(
        'matcher headers takes an object of names to a string, a RegExp or true, got {"x-a":1}',
      );
      expect((await refusal(c.waitForRequest(ep.slug, { json: 'invoice.paid' } as never, { since: 0 }))).message).toBe('matcher json takes an object of body fields, got "invoice.paid"');
      expect((await refusal(c.waitForRequest(ep.slug, null as never, { since: 0 }))).message).toBe(
        'a matcher is an object such as {path: \'/stripe\'} (or pass a function), got null',
      );
      expect(calls()).toBe(before);

      // The functions taking a matcher outside waiting refuse it too.
      expect(() => matches({ evnt: 'x' } as never)).toThrow(`unknown matcher key "evnt" (${KNOWN})`);
      expect(() => describeMatcher({ jsn: {} } as never)).toThrow(`unknown matcher key "jsn" (${KNOWN})`);
      await c.endpoints.delete(ep.slug);
    });

    test('a misspelt or misplaced option key is a validation error naming it and the known ones, before any request', async () => {
      const { c, calls } = await counted();
      const ep = await c.endpoints.create('options');
      const before = calls();
      const waitKnown = 'known: timeout, since, after, description, signal';
      expect((await refusal(c.waitForRequest(ep.slug, {}, { timout: 1_000 } as never))).message).toBe(`unknown waitForRequest option key "timout" (${waitKnown})`);
      // waitForRequest waits for one: a count there would be ignored.
      expect((await refusal(c.waitForRequest(ep.slug, {}, { count: 2 } as never))).message).toBe(`unknown waitForRequest option key "count" (${waitKnown})`);
      expect((await refusal(c.waitForRequests(ep.slug, {}, { count: 1, sinse: 0 } as never))).message).toBe(`unknown waitForRequests option key "sinse" (${waitKnown}, count)`);
      expect((await refusal(c.expectNoRequest(ep.slug, {}, { timeout: 1_000 } as never))).message).toBe(
        'unknown expectNoRequest option key "timeout" (known: within, since, after, description, signal)',
      );
      // A number where the options go (a timeout, say) is not an object of options.
      expect((await refusal(c.waitForRequest(ep.slug, {}, 5_000 as never))).message).toBe("waitForRequest's options are an object such as {timeout: 30000}, got 5000");
      expect(() => c.stream(ep.slug, { afer: 'req_x' } as never)).toThrow(
        'unknown stream option key "afer" (known: after, since, signal, reconnect, idleTimeoutMs, onOpen, onReconnect, onResume)',
      );
      expect(calls()).toBe(before);
      expect((await refusal(waitForClaim({ apiUrl: h.url, claimToken: 'clm_x', interval: 100 } as never))).message).toBe(
        'unknown waitForClaim option key "interval" (known: apiUrl, fetch, signal, claimToken, intervalMs, timeout)',
      );
      await c.endpoints.delete(ep.slug);
    });

    test('timeouts and counts must be what they take: a validation error saying so, before any request', async () => {
      const { c, calls } = await counted();
      const ep = await c.endpoints.create('timeouts');
      const before = calls();
      const ms = (name: string, min: number, got: string) => `${name} takes a number of milliseconds from ${min} to 2147483647 (e.g. 30000 for 30 s), got ${got}`;
      for (const [bad, said] of [
        ['2s', '"2s"'],
        [-1, '-1'],
        [Number.NaN, 'NaN'],
        [Number.POSITIVE_INFINITY, 'Infinity'],
        // More than a timer holds: setTimeout would fire at once.
        [2 ** 31, '2147483648'],
      ] as const) {
        const e = await refusal(c.waitForRequest(ep.slug, {}, { timeout: bad as number }));
        expect(e).toMatchObject({ status: 0, code: 'validation', message: ms('timeout', 0, said) });
        expect((await refusal(c.expectNoRequest(ep.slug, {}, { within: bad as number }))).message).toBe(ms('within', 0, said));
      }
      expect((await refusal(c.waitForRequests(ep.slug, {}, { count: '2' as never }))).message).toBe('count must be a whole number of at least 1, got "2"');
      expect((await refusal(c.waitForRequests(ep.slug, {}, { count: 0 }))).message).toBe('count must be a whole number of at least 1, got 0');
      expect(() => c.stream(ep.slug, { idleTimeoutMs: 0 })).toThrow(ms('idleTimeoutMs', 1, '0'));
      expect(calls()).toBe(before);
      expect((await refusal(waitForClaim({ apiUrl: h.url, claimToken: 'clm_x', intervalMs: '5s' as never }))).message).toBe(ms('intervalMs', 1, '"5s"'));
      expect((await refusal(waitForClaim({ apiUrl: h.url, claimToken: 'clm_x', timeout: -5 }))).message).toBe(ms('timeout', 0, '-5'));
      // Zero is a time: expectNoRequest over no time passes at once.
      await c.expectNoRequest(ep.slug, {}, { within: 0 });
      await c.endpoints.delete(ep.slug);
    });

    test('apiUrl as the server prints it (…/api, …/api/) works, for the client and the agent calls', async () => {
      for (const suffix of ['/api', '/api/', '/', '']) {
        const { c } = await counted(`${h.url}${suffix}`);
        expect(c.apiUrl).toBe(h.url);
        expect((await c.me()).email).toContain('@');
      }
      const reg = await registerAnonymous({ apiUrl: `${h.url}/api/`, clientName: 'api suffix' });
      expect(reg.credential).toStartWith('svc_');
    });

    test('a path matcher without its leading / matches the path with it, as the CLI --path does; a RegExp is left alone', async () => {
      const { c } = await counted();
      const ep = await c.endpoints.create('paths');
      const id = await sends(ep.url, '/github', { ref: 'main' });
      const got = await c.waitForRequest(ep.slug, { path: 'github' }, { since: 0, timeout: 10_000 });
      expect(got.id).toBe(id);
      expect(matches({ path: 'github' })(got)).toBe(true);
      // Exact, as before: no prefix or substring match.
      expect(matches({ path: 'git' })(got)).toBe(false);
      expect(matches({ path: /^github/ })(got)).toBe(false);
      expect(describeMatcher({ method: 'post', path: 'github' })).toBe('POST /github');
      const missed = await refusal(c.waitForRequest(ep.slug, { path: 'gitlab' }, { since: 0, timeout: 1_500 }));
      expect(missed.message).toStartWith(`no request matching /gitlab on ${ep.slug} within 1.5 s; 1 other arrived`);
      await c.endpoints.delete(ep.slug);
    });

    test('newestId of an endpoint with no capture is the lowest id, a position before the first capture', async () => {
      const { c } = await counted();
      const ep = await c.endpoints.create('empty');
      const mark = await c.newestId(ep.slug);
      expect(mark).toBe('req_00000000000000000000000000');
      const id = await sends(ep.url, '/first', {});
      expect((await c.waitForRequest(ep.slug, {}, { after: mark, timeout: 10_000 })).id).toBe(id);
      await c.endpoints.delete(ep.slug);
    });

    test('an unclaimed agent key: a wait is refused with 403 naming sandbox.captures; an account key without access keeps the plain 403/404', async () => {
      const reg = await registerAnonymous({ apiUrl: h.url, clientName: 'waiting in the sandbox' });
      const agent = createClient({ apiUrl: h.url, key: reg.credential });
      const ep = await agent.sandbox.create();
      const said =
        `this agent key is not claimed yet, and an unclaimed key has no stream to wait on: poll sandbox.captures("${ep.slug}") (newest first) ` +
        'for what its sandbox endpoint captured, or wait until a person claims the key (waitForClaim) and wait then';
      // From the newest capture (newestId's listing is refused) and from a position (the stream is).
      const live = await refusal(agent.waitForRequest(ep.slug, {}, { timeout: 5_000 }));
      expect(live).toMatchObject({ status: 403, code: 'forbidden', message: said });
      const after = await refusal(agent.waitForRequests(ep.slug, {}, { since: 0, count: 1, timeout: 5_000 }));
      expect(after).toMatchObject({ status: 403, code: 'forbidden', message: said });
      expect(await refusal(agent.expectNoRequest(ep.slug, {}, { within: 1_000 }))).toMatchObject({ status: 403, message: said });
      // An account key waiting on the sandbox slug: no sandbox to point to, the server's own refusal.
      const { c } = await counted();
      const other = await refusal(c.waitForRequest(ep.slug, {}, { timeout: 5_000 }));
      expect(other.message).not.toContain('sandbox.captures');
    });
  },
  AGENT_ENV,
);
