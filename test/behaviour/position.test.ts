/**
 * GET /api/endpoints/{slug}/position: what a wait or a stream with no `after` starts from
 * (docs/api.md): after the newest stored capture, never later than the moment the call came in.
 * Nothing stored: the lowest position (a webhook in flight with the call is not dropped); a
 * capture stored before the call: that capture; every capture received after the call is above
 * it, and the stream resumed after it gives exactly those.
 */
import { expect, test } from 'bun:test';
import { call, eventually, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';
import { capture, newEndpoint } from './teams-support';

interface Position {
  position: string;
  at: number;
}

describeBackends('a position for after (GET /api/endpoints/{slug}/position)', (h) => {
  test('nothing stored: the lowest; then the newest stored capture; every later capture above it', async () => {
    const a = await newAccount(h.url);
    const ep = await newEndpoint(h.url, a.key, 'position');
    const position = async () => {
      const r = await call<Position>(h.url, 'GET', `/api/endpoints/${ep.slug}/position`, { token: a.key });
      expect(r.status).toBe(200);
      expect(Math.abs(r.body.at - Date.now())).toBeLessThan(60_000);
      return r.body.position;
    };
    expect(await position()).toBe(`req_${'0'.repeat(26)}`);
    const before = await capture(h.url, ep.slug, 'before');
    await eventually(async () => ((await call<{ id: string }[]>(h.url, 'GET', `/api/endpoints/${ep.slug}/requests?limit=1`, { token: a.key })).body[0]?.id === before ? true : null), 15_000);
    const at = await position();
    expect(at).toBe(before);
    const after = await capture(h.url, ep.slug, 'after');
    expect(at < after).toBe(true);
    // The stream resumed after it (a wait's start) gives the later capture alone.
    const stop = new AbortController();
    const res = await fetch(`${h.url}/api/stream/${ep.slug}`, { headers: { authorization: `Bearer ${a.key}`, accept: 'text/event-stream', 'last-event-id': at }, signal: stop.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    const deadline = Date.now() + 15_000;
    while (!text.includes(after) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    stop.abort();
    expect(text).toContain(`id: ${after}`);
    expect(text).not.toContain(before);
  });

  test('an endpoint the caller cannot read, or none, is 404; no credential is 401', async () => {
    const [a, b] = await Promise.all([newAccount(h.url), newAccount(h.url)]);
    const theirs = await newEndpoint(h.url, b.key, 'theirs');
    expect((await call(h.url, 'GET', `/api/endpoints/${theirs.slug}/position`, { token: a.key })).status).toBe(404);
    expect((await call(h.url, 'GET', '/api/endpoints/nosuchslug00/position', { token: a.key })).status).toBe(404);
    expect((await call(h.url, 'GET', `/api/endpoints/${theirs.slug}/position`, {})).status).toBe(401);
  });
});
