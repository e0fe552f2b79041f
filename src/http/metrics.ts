/**
 * `GET /metrics`: the node's `/healthz` report in Prometheus' text exposition format (0.0.4), for
 * self-hosters' Prometheus and Grafana (docs/operations.md). Mounted only when METRICS_TOKEN is
 * set, and every scrape carries it as a bearer token; otherwise the path is a miss like any other.
 *
 * Rendered from the same `Health` snapshot `/healthz` answers with, at scrape time, so the two
 * cannot disagree and the capture path keeps no second set of counters. That is also why there is
 * no client library (prom-client and the like): they keep a registry of mutable metrics that the
 * code updates as it goes, which is exactly the second set; collect callbacks could bridge it, but
 * turning one plain object into a few dozen text lines needs nothing of theirs.
 *
 * @example
 * app.use(metricsRoutes(() => health(), config.metricsToken, buildInfo()))
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Elysia, t } from 'elysia';
import { AppError } from '../errors';
import type { Health } from '../health';
import type { Role } from '../config';
import { REFUSAL_REASONS, refusalStatus } from '../engine/refusals';
import { documented, ErrorBody } from './api/models';
import { bearer } from './auth';
import { tokenCheck } from './token-check';

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface BuildInfo {
  version: string;
  bun: string;
}

/** hookcap's version (package.json, shipped in the image) and the Bun running it. */
export function buildInfo(): BuildInfo {
  const pkg = JSON.parse(readFileSync(join(import.meta.dir, '..', '..', 'package.json'), 'utf8')) as { version?: string };
  return { version: pkg.version ?? 'unknown', bun: Bun.version };
}

type Labels = Record<string, string>;
interface Sample {
  labels?: Labels;
  value: number;
}
interface Family {
  name: string;
  help: string;
  type: 'gauge' | 'counter';
  samples: Sample[];
}

/** HELP text: backslash and line feed escaped (the format's rule for HELP). */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A label value: backslash, double quote and line feed escaped (the format's rule for label values). */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** Go's ParseFloat spellings for the values JavaScript prints otherwise. */
function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

function sampleLine(name: string, s: Sample): string {
  const labels = Object.entries(s.labels ?? {});
  const set = labels.length === 0 ? '' : `{${labels.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',')}}`;
  return `${name}${set} ${formatValue(s.value)}`;
}

const ROLES: readonly Role[] = ['receiver', 'api', 'stream'];
const bit = (b: boolean): number => (b ? 1 : 0);
const seconds = (ms: number): number => ms / 1000;

/**
 * The exposition text of one health report: every family has HELP and TYPE; a part the node does
 * not have (null in the report: another role's, or a probe of an embedded backend) is left out
 * rather than reported as 0, so a dashboard can tell "none" from "not here".
 */
export function renderMetrics(health: Health, build: BuildInfo): string {
  const families: Family[] = [];
  const gauge = (name: string, help: string, samples: Sample[] | number) =>
    families.push({ name, help, type: 'gauge', samples: typeof samples === 'number' ? [{ value: samples }] : samples });
  const counter = (name: string, help: string, samples: Sample[] | number) =>
    families.push({ name, help, type: 'counter', samples: typeof samples === 'number' ? [{ value: samples }] : samples });

  gauge('hookcap_build_info', 'hookcap version and the Bun runtime serving it; always 1', [{ labels: { version: build.version, bun: build.bun }, value: 1 }]);
  gauge('hookcap_node_role', 'Whether this node runs the role (ROLES): 1 or 0', ROLES.map((role) => ({ labels: { role }, value: bit(health.roles.includes(role)) })));
  gauge('hookcap_healthy', 'Whether /healthz says ok: 0 while the shipper worker is failed', bit(health.ok));
  gauge('hookcap_degraded', 'Whether /healthz says degraded: captures acknowledged but the capture store refuses inserts, is behind, or the log cannot be written', bit(health.status === 'degraded'));
  const b = health.backends;
  gauge('hookcap_backend_info', 'The stores this node uses (state: postgres|pglite, captures: clickhouse|sqlite, bus: nats|local); always 1', [{ labels: { state: b.state, captures: b.captures, bus: b.bus }, value: 1 }]);
  gauge('hookcap_bus_connected', 'Whether the node is connected to NATS (always 1 on the in-process bus)', bit(b.busConnected));
  if (b.stateReachable !== null) gauge('hookcap_state_store_reachable', 'Whether Postgres answered the last background SELECT 1 (every 5 s, 2 s timeout)', bit(b.stateReachable));
  if (b.capturesReachable !== null) gauge('hookcap_capture_store_reachable', 'Whether ClickHouse answered the last background one-row read of the captures table (every 5 s, 2 s timeout)', bit(b.capturesReachable));

  const log = health.captureLog;
  if (log) {
    counter('hookcap_captures_acknowledged_total', 'Captures written to the capture log and acknowledged since start (/healthz captureLog.frames)', log.frames);
    counter('hookcap_capture_log_writes_total', 'Synchronous capture log writes since start; acknowledged captures per write is the group-commit batch', log.groups);
    counter('hookcap_capture_log_recycled_segments_total', 'Capture log segments started on a recycled file since start', log.recycled);
    if (log.writeMs) {
      const w = log.writeMs;
      gauge(
        'hookcap_capture_log_write_seconds',
        'How long the recent capture log writes (the device flush every acknowledgement waits for) took; quantiles over the last writes (hookcap_capture_log_write_window), quantile 1 is the slowest. Summary-style gauges, not a summary: no _sum or _count',
        [
          { labels: { quantile: '0.5' }, value: seconds(w.p50) },
          { labels: { quantile: '0.99' }, value: seconds(w.p99) },
          { labels: { quantile: '1' }, value: seconds(w.max) },
        ],
      );
      gauge('hookcap_capture_log_write_window', 'Writes hookcap_capture_log_write_seconds is computed over (at most 1024)', w.writes);
    }
  }

  const s = health.shipper;
  if (s) {
    gauge('hookcap_shipper_backlog', 'Captures acknowledged but not yet in the capture store', s.backlog);
    gauge('hookcap_shipper_backlog_age_seconds', 'Age of the oldest capture waiting to be stored (0 when none waits)', seconds(s.backlogAgeMs));
    counter('hookcap_shipper_shipped_total', 'Captures stored in the capture store since start', s.shipped);
    counter('hookcap_shipper_insert_failures_total', 'Failed capture store inserts since start (each retried)', s.failures);
    gauge('hookcap_shipper_failing_inserts', 'Failed inserts since the last one that succeeded (0 while inserts succeed)', s.failing);
    gauge('hookcap_capture_log_writable', 'Whether the capture log can be written (0 on a full disk: the receiver answers 503)', bit(s.logWritable));
    gauge('hookcap_shipper_degraded', 'Whether the capture store refuses inserts, the backlog is too old, or the log cannot be written', bit(s.degraded));
    gauge('hookcap_shipper_worker_failed', 'Whether the shipper worker has failed and its replacement has not yet caught up', bit(s.worker === 'failed'));
    counter('hookcap_shipper_worker_restarts_total', 'Shipper workers replaced after failing since start', s.restarts);
    if (s.insertMs) {
      gauge('hookcap_shipper_insert_last_seconds', 'How long the latest capture store insert took (succeeded or failed)', seconds(s.insertMs.last));
      gauge('hookcap_shipper_inserts_last_minute', 'Capture store inserts that ended in the last 60 s', s.insertMs.lastMinute);
      if (s.insertMs.slowestLastMinute !== null) gauge('hookcap_shipper_insert_slowest_last_minute_seconds', 'The slowest capture store insert that ended in the last 60 s', seconds(s.insertMs.slowestLastMinute));
    }
  }

  const n = health.notifications;
  if (n) {
    gauge('hookcap_notifications_pending', 'Notifications queued, in flight or waiting to retry', n.pending);
    counter('hookcap_notifications_delivered_total', 'Notifications delivered since start', n.delivered);
    counter('hookcap_notifications_failed_total', 'Notifications given up since start (out of attempts or not retryable)', n.failed);
    counter('hookcap_notifications_dropped_total', 'Notifications refused on a full queue, or still pending at a shutdown, since start', n.dropped);
    counter('hookcap_notifications_retries_total', 'Notification delivery retries since start', n.retries);
  }

  const st = health.stream;
  if (st) {
    gauge('hookcap_stream_topics', 'Endpoints with at least one live stream client on this node', st.topics);
    gauge('hookcap_stream_clients', 'Open live stream clients on this node', st.clients);
    gauge('hookcap_stream_idle_topics', 'Endpoints kept subscribed without a client, for a resume', st.idle);
  }

  const u = health.unknownSlugs;
  if (u) {
    gauge('hookcap_unknown_slugs', 'Unknown slugs remembered, so a 404 flood skips the state store', u.entries);
    gauge('hookcap_unknown_slugs_bytes', 'Estimated memory of the unknown slugs remembered', u.bytes);
  }

  const c = health.endpointCache;
  if (c) {
    gauge('hookcap_endpoint_cache_entries', 'Endpoint snapshots cached (and loads under way)', c.entries);
    gauge('hookcap_endpoint_cache_bytes', 'Estimated memory of the cached endpoint snapshots', c.bytes);
    gauge('hookcap_endpoint_cache_max_entries', 'ENDPOINT_CACHE_MAX', c.max);
    gauge('hookcap_endpoint_cache_max_bytes', 'ENDPOINT_CACHE_MAX_BYTES', c.maxBytes);
    counter('hookcap_endpoint_cache_load_queries_total', 'Endpoint load queries sent to the state store since start (one per batch)', c.queries);
    counter('hookcap_endpoint_cache_slugs_loaded_total', 'Slugs those load queries asked for since start', c.slugsLoaded);
    counter('hookcap_endpoint_cache_evictions_total', 'Endpoint snapshots dropped to stay within the cache bounds since start', c.evictions);
  }

  // Every reason from start, at 0 until one happens, so rate() has a first point; the labels come from
  // the closed set of reasons, never from a request.
  counter(
    'hookcap_receiver_refusals_total',
    'Requests to /w/ refused since start, by reason and the status answered (/healthz refusals; reasons in docs/operations.md)',
    REFUSAL_REASONS.map((reason) => ({ labels: { reason, status: String(refusalStatus(reason)) }, value: health.refusals[reason] })),
  );

  const lines: string[] = [];
  for (const f of families) {
    lines.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    for (const sample of f.samples) lines.push(sampleLine(f.name, sample));
  }
  return `${lines.join('\n')}\n`;
}

/** The route, on the API listener beside /healthz; `health` is the same function /healthz answers with. */
export const metricsRoutes = (health: () => Health, token: string, build: BuildInfo) => {
  const matches = tokenCheck(token);
  return new Elysia({ name: 'metrics' }).get(
    '/metrics',
    ({ request }) => {
      if (!matches(bearer(request.headers.get('authorization')))) {
        throw new AppError('unauthorized', 'metrics need Authorization: Bearer <METRICS_TOKEN>', { 'www-authenticate': 'Bearer realm="hookcap-metrics"' });
      }
      // no-store: a scrape is a reading of now; no cache between Prometheus and the node may answer it.
      return new Response(renderMetrics(health(), build), { headers: { 'content-type': METRICS_CONTENT_TYPE, 'cache-control': 'no-store' } });
    },
    {
      detail: {
        summary: 'This node’s /healthz report in the Prometheus text format 0.0.4 (only when METRICS_TOKEN is set; the token as bearer)',
        description: 'Metric names and meanings: docs/operations.md, "/metrics". Without METRICS_TOKEN the route does not exist (404).',
        responses: documented({
          200: { description: 'The metrics, one `name{label="value"} value` line per sample, each metric with # HELP and # TYPE', schema: t.String(), type: METRICS_CONTENT_TYPE },
          401: { description: 'Error: unauthorized (no or another token than METRICS_TOKEN)', schema: ErrorBody },
        }),
      },
    },
  );
};
