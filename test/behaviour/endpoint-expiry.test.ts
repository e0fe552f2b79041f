/**
 * Self-expiring endpoints (`expiresIn` on POST /api/endpoints): a CI run that crashes leaves
 * nothing behind. The service runs in-process on a real port with a clock the test moves; the
 * sweep is the service's own (`sweepOnce`, what its periodic sweeper runs every minute), called
 * at once instead of waiting for the minute.
 */
import { expect, test } from 'bun:test';
import { sweepOnce } from '../../src/services/expiry-sweeper';
import { newSlug, randomId } from '../../src/ids';
import { writeEndpoints } from '../../src/services/endpoint-writes';
import { findEndpointBySlug, insertEndpoint, listPendingPurges, updateEndpoint } from '../../src/stores/state/endpoints';
import { call, eventually, newAccount, type OpenApiDoc } from '../support/client';
import { describeInProcess } from '../support/in-process';
import { paidTeam, TEAMS_ENV } from './teams-support';

const MIN_S = 60;
const MAX_S = 30 * 24 * 3600;

interface Ep {
  id: string;
  slug: string;
  url: string;
  createdAt: number;
  expiresAt: number | null;
  /** On a refusal. */
  error?: string;
  code?: string;
}

describeInProcess('endpoint expiry', (h) => {
  const create = (key: string, body: Record<string, unknown>) => call<Ep>(h.url, 'POST', '/api/endpoints', { token: key, body });

  test('expiresIn sets expiresAt (ms, as createdAt) on create, get and list; without it expiresAt is null', async () => {
    const a = await newAccount(h.url);
    const before = h.clock.now();
    const r = await create(a.key, { name: 'ci run 42', expiresIn: 3600 });
    expect(r.status).toBe(201);
    const ep = r.body;
    expect(ep.expiresAt).toBe(ep.createdAt + 3600_000);
    expect(ep.createdAt).toBeGreaterThanOrEqual(before);
    const forever = (await create(a.key, { name: 'kept' })).body;
    expect(forever.expiresAt).toBeNull();
    expect((await call<Ep>(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key })).body.expiresAt).toBe(ep.expiresAt);
    const list = (await call<Ep[]>(h.url, 'GET', '/api/endpoints', { token: a.key })).body;
    expect(list.map((e) => [e.slug, e.expiresAt])).toEqual([
      [ep.slug, ep.expiresAt],
      [forever.slug, null],
    ]);
  });

  test('expiresIn out of bounds, not whole or not a number: 400 naming the field, nothing created', async () => {
    const a = await newAccount(h.url);
    for (const expiresIn of [MIN_S - 1, MAX_S + 1, 0, -60, 90.5, '3600', null, true]) {
      const r = await create(a.key, { name: 'bad', expiresIn });
      expect(r.status, JSON.stringify(expiresIn)).toBe(400);
      expect(r.body.error, JSON.stringify(expiresIn)).toStartWith('expiresIn');
      expect(r.body.code).toBe('validation');
    }
    expect((await call<Ep[]>(h.url, 'GET', '/api/endpoints', { token: a.key })).body).toEqual([]);
    // The bounds themselves are accepted.
    for (const expiresIn of [MIN_S, MAX_S]) expect((await create(a.key, { name: 'edge', expiresIn })).status).toBe(201);
  });

  test('at its expiry the endpoint is gone: captures refused as for an unknown slug, reads 404; the sweep deletes it and purges its captures as DELETE does', async () => {
    const a = await newAccount(h.url);
    const ep = (await create(a.key, { name: 'short', expiresIn: MIN_S })).body;
    const kept = (await create(a.key, { name: 'kept' })).body;
    const hit = await fetch(`${ep.url}/hook`, { method: 'POST', body: 'in time' });
    expect(hit.status).toBe(200);
    const id = hit.headers.get('x-request-id') ?? '';
    await eventually(async () => (await call(h.url, 'GET', `/api/requests/${id}`, { token: a.key })).status === 200);
    // A second before its expiry it still captures.
    h.clock.advance((ep.expiresAt ?? 0) - h.clock.now() - 1000);
    expect((await fetch(ep.url, { method: 'POST', body: 'just in time' })).status).toBe(200);
    h.clock.advance(1100);

    const late = await fetch(ep.url, { method: 'POST', body: 'late' });
    const unknown = await fetch(`${h.url}/w/zzzzzzzzzzzz`, { method: 'POST', body: 'late' });
    expect(late.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(((await late.json()) as { code: string }).code).toBe(((await unknown.json()) as { code: string }).code);
    for (const path of [`/api/endpoints/${ep.slug}`, `/api/endpoints/${ep.slug}/requests`, `/api/requests/${id}`, `/api/search/requests?slug=${ep.slug}`]) {
      expect((await call(h.url, 'GET', path, { token: a.key })).status, path).toBe(404);
    }
    expect((await call(h.url, 'GET', '/api/search/requests/count', { token: a.key })).body).toEqual({ count: 0 });
    expect((await call<Ep[]>(h.url, 'GET', '/api/endpoints', { token: a.key })).body.map((e) => e.slug)).toEqual([kept.slug]);
    expect((await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { expiresIn: null } })).status).toBe(404);

    // The row is still there until the sweep; then it is deleted and its captures queued for the purger.
    const { ctx } = h.server.service;
    expect(await findEndpointBySlug(ctx.db, ep.slug)).not.toBeNull();
    await sweepOnce(ctx);
    expect(await findEndpointBySlug(ctx.db, ep.slug)).toBeNull();
    expect(await findEndpointBySlug(ctx.db, kept.slug)).not.toBeNull();
    await eventually(async () => !(await listPendingPurges(ctx.db, 500)).includes(ep.id), 20_000);
    // ClickHouse's purge is a background mutation: gone a moment after the purger's pass.
    await eventually(async () => (await ctx.captures.get(id, [{ endpointId: ep.id, since: 0 }])) === null, 30_000);
  });

  test('PATCH expiresIn moves the expiry (counted from now); null keeps the endpoint for good; bounds as on create', async () => {
    const a = await newAccount(h.url);
    const ep = (await create(a.key, { name: 'debug me', expiresIn: MIN_S })).body;
    const patch = (body: Record<string, unknown>) => call<Ep>(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body });
    const now = h.clock.now();
    const moved = await patch({ expiresIn: 7200 });
    expect(moved.status).toBe(200);
    expect(moved.body.expiresAt ?? 0).toBeGreaterThanOrEqual(now + 7200_000);
    expect(moved.body.expiresAt ?? 0).toBeLessThanOrEqual(h.clock.now() + 7200_000);
    for (const expiresIn of [MIN_S - 1, MAX_S + 1, '60']) {
      const r = await patch({ expiresIn });
      expect(r.status).toBe(400);
      expect(r.body.error).toStartWith('expiresIn');
    }
    const cleared = await patch({ expiresIn: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.expiresAt).toBeNull();
    // Past the old expiry, it captures, and the sweep leaves it.
    h.clock.advance(7200_000 + 1000);
    expect((await fetch(ep.url, { method: 'POST', body: 'still here' })).status).toBe(200);
    await sweepOnce(h.server.service.ctx);
    expect((await call<Ep>(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key })).body.expiresAt).toBeNull();
    // A name-only PATCH leaves the expiry as it is.
    const again = (await patch({ expiresIn: 600 })).body.expiresAt;
    expect((await patch({ name: 'renamed' })).body.expiresAt).toBe(again);
  });

  test('more endpoints expiring at once than one sweep batch (500) are all deleted by one sweep', async () => {
    const a = await newAccount(h.url);
    const { ctx } = h.server.service;
    const me = (await call<{ id: string }>(h.url, 'GET', '/api/auth/me', { token: a.key })).body;
    const now = h.clock.now();
    // A crashed CI fleet's worth, written as POST /api/endpoints writes them (faster than 520 requests).
    const slugs = await writeEndpoints(ctx, async (w) => {
      const out: string[] = [];
      for (let i = 0; i < 520; i++) {
        const row = await insertEndpoint(w, { id: randomId('ep'), slug: newSlug(), name: `ci ${i}`, userId: me.id, expiresAt: now + MIN_S * 1000, createdAt: now });
        if (row) out.push(row.slug);
      }
      return out;
    });
    expect(slugs).toHaveLength(520);
    h.clock.advance(MIN_S * 1000 + 1);
    expect((await call<Ep[]>(h.url, 'GET', '/api/endpoints', { token: a.key })).body).toEqual([]);
    await sweepOnce(ctx);
    for (const slug of [slugs[0], slugs[499], slugs[500], slugs[519]]) expect(await findEndpointBySlug(ctx.db, slug ?? '')).toBeNull();
  });

  test('/docs/json documents expiresIn on create and PATCH, and expiresAt on the endpoint', async () => {
    const spec = (await call<OpenApiDoc>(h.url, 'GET', '/docs/json')).body as unknown as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> }; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
    };
    const bodyOf = (path: string, method: string) => spec.paths[path]?.[method]?.requestBody?.content['application/json']?.schema.properties ?? {};
    expect(bodyOf('/api/endpoints', 'post').expiresIn).toMatchObject({ type: 'integer', minimum: MIN_S, maximum: MAX_S });
    expect(JSON.stringify(bodyOf('/api/endpoints/{slug}', 'patch').expiresIn)).toContain('"type":"null"');
    expect(JSON.stringify(spec.paths['/api/endpoints']?.post?.responses['201'])).toContain('expiresAt');
  });
});

describeInProcess(
  'endpoint expiry, shared with a team',
  (h) => {
    test('an expired endpoint not yet swept is gone from the team: left out of its list, refused for sharing; a PATCH cannot revive it', async () => {
      const owner = await newAccount(h.url);
      const team = await paidTeam(h.url, owner, 10, 'CI team', h.clock.now());
      const make = async (name: string) =>
        (await call<Ep>(h.url, 'POST', '/api/endpoints', { token: owner.key, body: { name, expiresIn: MIN_S } })).body;
      const shared = await make('shared, expiring');
      const unshared = await make('not yet shared');
      const share = (ep: Ep) => call(h.url, 'POST', `/api/teams/${team.id}/endpoints`, { token: owner.key, body: { endpointId: ep.id } });
      expect((await share(shared)).status).toBe(201);
      const listed = async () =>
        (await call<{ slug: string }[]>(h.url, 'GET', `/api/teams/${team.id}/endpoints`, { token: owner.key })).body.map((e) => e.slug);
      expect(await listed()).toEqual([shared.slug]);

      h.clock.advance(MIN_S * 1000 + 1000);
      expect(await listed()).toEqual([]);
      expect((await share(unshared)).status).toBe(404);
      // What a PATCH racing the expiry would reach, after its own read had seen it live: the write
      // itself matches only a live row.
      const row = await findEndpointBySlug(h.server.service.ctx.db, unshared.slug);
      const revived = await writeEndpoints(h.server.service.ctx, (w) => updateEndpoint(w, row?.id ?? '', { expiresAt: null }, h.clock.now()));
      expect(revived).toBeNull();
      expect((await call(h.url, 'GET', `/api/endpoints/${unshared.slug}`, { token: owner.key })).status).toBe(404);
    });
  },
  TEAMS_ENV,
);
