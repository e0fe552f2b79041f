/**
 * src/http/metrics.ts's renderer: label values and HELP escaped as the text format 0.0.4 says
 * (read back by an independent reader, test/support/prometheus.ts), units converted, and the parts
 * a node does not have left out rather than reported as zeros.
 */
import { expect, test } from 'bun:test';
import { ReceiverRefusals, type RefusalCounts } from '../../src/engine/refusals';
import type { Health } from '../../src/health';
import { escapeHelp, escapeLabelValue, renderMetrics } from '../../src/http/metrics';
import { parsePromText, REFUSAL_STATUS, sampleValue } from '../support/prometheus';

const build = { version: '0.1.0', bun: '1.2.3' };

function receiverHealth(): Health {
  return {
    ok: true,
    status: 'ok',
    roles: ['receiver'],
    backends: { state: 'postgres', captures: 'clickhouse', bus: 'nats', busConnected: true, stateReachable: false, capturesReachable: true },
    shipper: { backlog: 3, backlogAgeMs: 1500, shipped: 40, failures: 2, failing: 0, logWritable: true, degraded: false, restarts: 1, worker: 'running', lastError: 'insert "failed"\nagain', insertMs: { last: 12.5, lastMinute: 7, slowestLastMinute: null } },
    notifications: { pending: 1, delivered: 2, failed: 0, dropped: 0, retries: 4 },
    stream: null,
    unknownSlugs: { entries: 5, bytes: 640 },
    endpointCache: { entries: 9, bytes: 4000, max: 100_000, maxBytes: 1 << 26, queries: 3, slugsLoaded: 12, evictions: 0 },
    captureLog: { groups: 10, frames: 43, recycled: 0, writeMs: { writes: 10, p50: 0.25, p99: 1.5, max: 2 } },
    refusals: { ...new ReceiverRefusals().snapshot(), unknown_endpoint: 7, payload_too_large: 2, capture_log_failed: 1 },
  };
}


test('label values: backslash, double quote and line feed are escaped, and read back as given', () => {
  const hostile = 'a\\b"c\nd\\"\\n';
  expect(escapeLabelValue(hostile)).toBe('a\\\\b\\"c\\nd\\\\\\"\\\\n');
  const text = renderMetrics(receiverHealth(), { version: hostile, bun: 'plain' });
  const line = text.split('\n').find((l) => l.startsWith('hookcap_build_info'));
  expect(line).toBe('hookcap_build_info{version="a\\\\b\\"c\\nd\\\\\\"\\\\n",bun="plain"} 1');
  const parsed = parsePromText(text);
  expect(parsed.problems).toEqual([]);
  expect(parsed.samples.find((s) => s.name === 'hookcap_build_info')?.labels).toEqual({ version: hostile, bun: 'plain' });
});

test('HELP: backslash and line feed escaped, double quotes kept as they are', () => {
  expect(escapeHelp('C:\\dir\nnext "quoted"')).toBe('C:\\\\dir\\nnext "quoted"');
});

test('every sample has HELP and TYPE once, before it; values in base units; free text never in a label', () => {
  const text = renderMetrics(receiverHealth(), build);
  const parsed = parsePromText(text);
  expect(parsed.problems).toEqual([]);
  for (const s of parsed.samples) {
    expect(parsed.help.get(s.name), s.name).toBeTruthy();
    expect(parsed.type.get(s.name), s.name).toMatch(/^(gauge|counter)$/);
    expect(s.name.startsWith('hookcap_'), s.name).toBe(true);
    if (parsed.type.get(s.name) === 'counter') expect(s.name.endsWith('_total'), s.name).toBe(true);
  }
  expect(sampleValue(parsed, 'hookcap_captures_acknowledged_total')).toBe(43);
  expect(sampleValue(parsed, 'hookcap_shipper_backlog_age_seconds')).toBe(1.5);
  expect(sampleValue(parsed, 'hookcap_shipper_insert_last_seconds')).toBe(0.0125);
  expect(sampleValue(parsed, 'hookcap_capture_log_write_seconds', { quantile: '0.99' })).toBe(0.0015);
  expect(sampleValue(parsed, 'hookcap_capture_log_write_seconds', { quantile: '1' })).toBe(0.002);
  expect(sampleValue(parsed, 'hookcap_state_store_reachable')).toBe(0);
  expect(sampleValue(parsed, 'hookcap_node_role', { role: 'receiver' })).toBe(1);
  expect(sampleValue(parsed, 'hookcap_node_role', { role: 'stream' })).toBe(0);
  expect(sampleValue(parsed, 'hookcap_backend_info', { state: 'postgres', captures: 'clickhouse', bus: 'nats' })).toBe(1);
  // The shipper's last error is free text: it stays in /healthz, not in a label.
  expect(text).not.toContain('again');
});

test('parts the node does not have are left out, not zeros', () => {
  const h: Health = { ...receiverHealth(), roles: ['stream'], backends: { state: 'pglite', captures: 'sqlite', bus: 'local', busConnected: true, stateReachable: null, capturesReachable: null }, shipper: null, notifications: null, unknownSlugs: null, endpointCache: null, captureLog: null, stream: { topics: 2, clients: 3, idle: 1 } };
  const parsed = parsePromText(renderMetrics(h, build));
  expect(parsed.problems).toEqual([]);
  const names = new Set(parsed.samples.map((s) => s.name));
  for (const absent of ['hookcap_state_store_reachable', 'hookcap_capture_store_reachable', 'hookcap_shipper_backlog', 'hookcap_captures_acknowledged_total', 'hookcap_endpoint_cache_entries', 'hookcap_notifications_pending']) expect(names.has(absent), absent).toBe(false);
  expect(sampleValue(parsed, 'hookcap_stream_clients')).toBe(3);
  // No HELP or TYPE left behind for a metric without samples.
  expect([...parsed.type.keys()].filter((n) => !names.has(n))).toEqual([]);
});

test('refusals: one counter family, a sample per reason labelled with its status, zeros included, on every node', () => {
  for (const h of [receiverHealth(), { ...receiverHealth(), roles: ['stream'], shipper: null, captureLog: null, refusals: new ReceiverRefusals().snapshot() } satisfies Health]) {
    const parsed = parsePromText(renderMetrics(h, build));
    expect(parsed.problems).toEqual([]);
    expect(parsed.type.get('hookcap_receiver_refusals_total')).toBe('counter');
    const samples = parsed.samples.filter((s) => s.name === 'hookcap_receiver_refusals_total');
    expect(samples.map((s) => s.labels)).toEqual(Object.entries(REFUSAL_STATUS).map(([reason, status]) => ({ reason, status })));
    for (const s of samples) expect(s.value, s.line).toBe(h.refusals[s.labels.reason as keyof RefusalCounts]);
  }
  const parsed = parsePromText(renderMetrics(receiverHealth(), build));
  expect(sampleValue(parsed, 'hookcap_receiver_refusals_total', { reason: 'unknown_endpoint', status: '404' })).toBe(7);
  expect(sampleValue(parsed, 'hookcap_receiver_refusals_total', { reason: 'invalid_slug', status: '404' })).toBe(0);
});

test('refusal counts: every reason at 0 from start; counting one moves only it; a snapshot is a copy', () => {
  const r = new ReceiverRefusals();
  const start = r.snapshot();
  expect(start).toEqual(Object.fromEntries(Object.keys(REFUSAL_STATUS).map((k) => [k, 0])) as RefusalCounts);
  r.count('expired_endpoint');
  r.count('expired_endpoint');
  start.internal = 99;
  expect(r.snapshot()).toEqual({ ...Object.fromEntries(Object.keys(REFUSAL_STATUS).map((k) => [k, 0])), expired_endpoint: 2 } as RefusalCounts);
});
