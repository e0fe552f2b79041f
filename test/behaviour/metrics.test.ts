/**
 * `GET /metrics` (docs/operations.md): a real server with METRICS_TOKEN, real captures to /w/, and
 * scrapes read line by line by an independent reader of the text format
 * (test/support/prometheus.ts). The counters move by exactly what was sent and agree with
 * /healthz; without the token the route refuses, without the setting it does not exist. Both
 * backends.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Health } from '../../src/health';
import { call, eventually, newAccount } from '../support/client';
import { startInProcess, stopInProcess, type InProcessServer } from '../support/in-process';
import { parsePromText, sampleValue, type PromText } from '../support/prometheus';
import { SUITE_START_MS } from '../support/server';
import { describeBackends } from '../support/suite';

const TOKEN = 'mtr_test_4b1d9e7c2a5f8036d1e4a7c0b3f6e9d2';
const ADMIN = 'adm_test_metrics_0f1e2d3c4b5a69788796a5b4';
const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

async function scrape(url: string): Promise<{ res: Response; text: string; parsed: PromText }> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await res.text();
  return { res, text, parsed: parsePromText(text) };
}

describeBackends(
  'GET /metrics',
  (h) => {
    test('without the token, with another (ADMIN_TOKEN too) or malformed: a JSON 401 that reveals nothing', async () => {
      for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Bearer ${ADMIN}`, 'Bearer ', TOKEN, `Basic ${btoa(`prometheus:${TOKEN}`)}`]) {
        const res = await fetch(`${h.url}/metrics`, { headers: authorization === undefined ? {} : { authorization } });
        expect({ authorization, status: res.status }).toEqual({ authorization, status: 401 });
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="hookcap-metrics"');
        expect(await res.json()).toEqual({ error: 'metrics need Authorization: Bearer <METRICS_TOKEN>', code: 'unauthorized' });
      }
    });

    test('a scrape is text format 0.0.4: its content type; every line HELP, TYPE or a sample; every sample with HELP and TYPE; values numbers', async () => {
      const { res, text, parsed } = await scrape(h.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(CONTENT_TYPE);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(parsed.problems).toEqual([]);
      expect(parsed.samples.length).toBeGreaterThan(30);
      for (const s of parsed.samples) {
        expect({ name: s.name, help: parsed.help.has(s.name), type: parsed.type.get(s.name) }).toEqual({ name: s.name, help: true, type: expect.stringMatching(/^(gauge|counter)$/) });
        expect(Number.isFinite(s.value), s.line).toBe(true);
        if (parsed.type.get(s.name) === 'counter') expect(s.name, s.line).toEndWith('_total');
      }
      // Families are contiguous: a name's samples follow its own HELP and TYPE, not another's.
      const order = text.split('\n').filter((l) => l.startsWith('# TYPE ')).map((l) => l.split(' ')[2]);
      expect(new Set(order).size).toBe(order.length);
      const health = (await call<Health>(h.url, 'GET', '/healthz')).body;
      const b = health.backends;
      expect(sampleValue(parsed, 'hookcap_backend_info', { state: b.state, captures: b.captures, bus: b.bus })).toBe(1);
      for (const role of ['receiver', 'api', 'stream']) expect(sampleValue(parsed, 'hookcap_node_role', { role })).toBe(1);
      expect(sampleValue(parsed, 'hookcap_healthy')).toBe(1);
      // The background probes exist on the server backends only; absent, not 0, on the embedded ones.
      const probes = parsed.samples.filter((s) => s.name === 'hookcap_state_store_reachable' || s.name === 'hookcap_capture_store_reachable').length;
      expect(probes).toBe(h.backend === 'server' ? 2 : 0);
    });

    test('captures sent move the acknowledged counter by exactly their number, stored ones the shipped counter; an unknown slug moves neither; the numbers are /healthz’s', async () => {
      const a = await newAccount(h.url);
      const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'metrics' } })).body;
      const settled = async () => {
        const s = await scrape(h.url);
        return sampleValue(s.parsed, 'hookcap_shipper_backlog') === 0 ? s.parsed : null;
      };
      const before = await eventually(settled, 30_000);
      const SENT = 7;
      for (let i = 0; i < SENT; i++) expect((await fetch(`${h.url}/w/${ep.slug}/m${i}`, { method: 'POST', body: `{"n":${i}}` })).status).toBe(200);
      expect((await fetch(`${h.url}/w/aaaaaaaaaaaa`, { method: 'POST', body: 'x' })).status).toBe(404);
      const acked = (await scrape(h.url)).parsed;
      const delta = (after: PromText, name: string) => sampleValue(after, name) - sampleValue(before, name);
      expect(delta(acked, 'hookcap_captures_acknowledged_total')).toBe(SENT);
      // Sent one after another, each waited for its own write.
      expect(delta(acked, 'hookcap_capture_log_writes_total')).toBe(SENT);
      const after = await eventually(async () => {
        const p = await settled();
        return p && delta(p, 'hookcap_shipper_shipped_total') === SENT ? p : null;
      }, 30_000);
      expect(delta(after, 'hookcap_captures_acknowledged_total')).toBe(SENT);
      expect(sampleValue(after, 'hookcap_shipper_backlog_age_seconds')).toBe(0);
      expect(sampleValue(after, 'hookcap_shipper_inserts_last_minute')).toBeGreaterThanOrEqual(1);
      expect(sampleValue(after, 'hookcap_capture_log_write_seconds', { quantile: '0.99' })).toBeGreaterThan(0);

      // Nothing happens between the two reads: both render the one report.
      const health = (await call<Health>(h.url, 'GET', '/healthz')).body;
      const now = (await scrape(h.url)).parsed;
      expect(sampleValue(now, 'hookcap_captures_acknowledged_total')).toBe(health.captureLog?.frames ?? -1);
      expect(sampleValue(now, 'hookcap_capture_log_writes_total')).toBe(health.captureLog?.groups ?? -1);
      expect(sampleValue(now, 'hookcap_shipper_shipped_total')).toBe(health.shipper?.shipped ?? -1);
      expect(sampleValue(now, 'hookcap_unknown_slugs')).toBe(health.unknownSlugs?.entries ?? -1);
      expect(sampleValue(now, 'hookcap_endpoint_cache_entries')).toBe(health.endpointCache?.entries ?? -1);
      expect(sampleValue(now, 'hookcap_endpoint_cache_load_queries_total')).toBe(health.endpointCache?.queries ?? -1);
      expect(sampleValue(now, 'hookcap_notifications_delivered_total')).toBe(health.notifications?.delivered ?? -1);
    });

    test('the token is never written to the service’s output', () => {
      expect(h.server.output()).not.toContain(TOKEN);
      expect(h.server.output()).not.toContain(TOKEN.slice(8, 24));
    });
  },
  { METRICS_TOKEN: TOKEN, ADMIN_TOKEN: ADMIN },
);

describe('GET /metrics without METRICS_TOKEN', () => {
  let s: InProcessServer | undefined;
  beforeAll(async () => {
    s = await startInProcess({ env: { ADMIN_TOKEN: ADMIN } });
  }, SUITE_START_MS);
  afterAll(async () => {
    if (s) await stopInProcess(s);
  }, SUITE_START_MS);

  test('the route does not exist: 404 like any unknown path, with or without a bearer token', async () => {
    const url = s?.url ?? '';
    expect(s?.service.routes.some((r) => r.path === '/metrics')).toBe(false);
    for (const authorization of [`Bearer ${TOKEN}`, `Bearer ${ADMIN}`]) {
      const res = await fetch(`${url}/metrics`, { headers: { authorization } });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'no page GET /metrics; the dashboard is at /, the API at /api (described at /docs)', code: 'not_found' });
    }
  });
});
