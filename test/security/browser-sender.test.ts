/**
 * A web page as a sender: a page on another origin POSTs to a receiver with fetch, preflight
 * included, and reads the answer (docs/api.md "The receiver as senders see it").
 */
import { afterAll, expect, test } from 'bun:test';
import { CHROMIUM_SKIP, useChromium } from '../support/browser';
import { describeBackends } from '../support/suite';
import { accountWithEndpoint, captured } from './support';

const browser = useChromium();

/** The sending page: another origin than the service (localhost vs 127.0.0.1, another port). */
const senderSite = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('<!doctype html><title>sender</title><p>sender</p>', { headers: { 'content-type': 'text/html' } }) });
afterAll(() => senderSite.stop(true));

interface PageAnswer {
  status?: number;
  body?: string;
  requestId?: string | null;
  error?: string;
}

describeBackends('security: a web page sends to a receiver', (h) => {
  test('a cross-origin fetch with a JSON body and an Authorization header is preflighted, captured, and its answer readable', async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    const context = await browser().newContext();
    try {
      const page = await context.newPage();
      await page.goto(`http://localhost:${senderSite.port}/`);
      const send = (url: string, init: { method: string; headers?: Record<string, string>; body?: string }) =>
        page.evaluate(
          async ([u, i]) => {
            try {
              const r = await fetch(u, i);
              return { status: r.status, body: await r.text(), requestId: r.headers.get('x-request-id') };
            } catch (e) {
              return { error: String(e) };
            }
          },
          [url, init] as const,
        ) as Promise<PageAnswer>;
      const json = await send(`${h.url}/w/${endpoint.slug}/from-page`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sender-token', 'x-signature': 'abc' },
        body: '{"event":"page"}',
      });
      expect({ status: json.status, error: json.error }).toEqual({ status: 200, error: undefined });
      const id = (JSON.parse(json.body ?? '{}') as { id?: string }).id;
      expect(json.requestId).toBe(id ?? 'missing');
      const simple = await send(`${h.url}/w/${endpoint.slug}/simple`, { method: 'POST', body: 'plain text' });
      expect({ status: simple.status, error: simple.error }).toEqual({ status: 200, error: undefined });
      // A refusal is readable too: the page learns why.
      const unknown = await send(`${h.url}/w/abcdefghijkm/x`, { method: 'POST', body: 'x' });
      expect({ status: unknown.status, code: (JSON.parse(unknown.body ?? '{}') as { code?: string }).code }).toEqual({ status: 404, code: 'not_found' });
      const recs = await captured(h.url, account.key, endpoint.slug, 3);
      expect(recs.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['OPTIONS /from-page', 'POST /from-page', 'POST /simple']);
      const posted = recs.find((r) => r.id === id);
      expect([posted?.body, posted?.headers.authorization, posted?.headers['x-signature']]).toEqual(['{"event":"page"}', 'Bearer sender-token', 'abc']);
    } finally {
      await context.close();
    }
  });
}, {}, CHROMIUM_SKIP);
