import { expect, test } from 'bun:test';
import { loadConfig } from '../../src/config';

test('the shipper batches for a second with ClickHouse, a quarter second with SQLite; SHIP_MAX_AGE_MS wins over both', () => {
  expect(loadConfig({ DATA_DIR: '/tmp/hookcap-config-test' }).shipMaxAgeMs).toBe(250);
  expect(loadConfig({ DATA_DIR: '/tmp/hookcap-config-test', CLICKHOUSE_URL: 'http://127.0.0.1:8123' }).shipMaxAgeMs).toBe(1000);
  expect(loadConfig({ DATA_DIR: '/tmp/hookcap-config-test', CLICKHOUSE_URL: 'http://127.0.0.1:8123', SHIP_MAX_AGE_MS: '250' }).shipMaxAgeMs).toBe(250);
  expect(loadConfig({ DATA_DIR: '/tmp/hookcap-config-test', SHIP_MAX_AGE_MS: '40' }).shipMaxAgeMs).toBe(40);
});

test('the shipper inserts at most 30,000 captures at a time unless SHIP_BATCH_ROWS says otherwise', () => {
  expect(loadConfig({ DATA_DIR: '/tmp/hookcap-config-test' }).shipBatchRows).toBe(30_000);
  expect(loadConfig({ DATA_DIR: '/tmp/hookcap-config-test', SHIP_BATCH_ROWS: '500' }).shipBatchRows).toBe(500);
});

test('live captures are published after every group commit unless LIVE_FLUSH_MS spaces the flushes', () => {
  expect(loadConfig({ DATA_DIR: '/tmp/hookcap-config-test' }).liveFlushMs).toBe(0);
  expect(loadConfig({ DATA_DIR: '/tmp/hookcap-config-test', LIVE_FLUSH_MS: '5' }).liveFlushMs).toBe(5);
  expect(() => loadConfig({ DATA_DIR: '/tmp/hookcap-config-test', LIVE_FLUSH_MS: '-1' })).toThrow(/LIVE_FLUSH_MS/);
  expect(() => loadConfig({ DATA_DIR: '/tmp/hookcap-config-test', LIVE_FLUSH_MS: '5000' })).toThrow(/LIVE_FLUSH_MS must be at most 1000/);
});

test('a browser session lasts 30 days unless SESSION_TTL_MS says otherwise; streams re-check their credentials every minute unless STREAM_RECHECK_MS says otherwise', () => {
  const defaults = loadConfig({ DATA_DIR: '/tmp/hookcap-config-test' });
  expect(defaults.sessionTtlMs).toBe(30 * 24 * 3600_000);
  expect(defaults.stream.recheckMs).toBe(60_000);
  const set = loadConfig({ DATA_DIR: '/tmp/hookcap-config-test', SESSION_TTL_MS: '4000', STREAM_RECHECK_MS: '500' });
  expect(set.sessionTtlMs).toBe(4000);
  expect(set.stream.recheckMs).toBe(500);
  expect(() => loadConfig({ DATA_DIR: '/tmp/hookcap-config-test', SESSION_TTL_MS: '10' })).toThrow(/SESSION_TTL_MS/);
  expect(() => loadConfig({ DATA_DIR: '/tmp/hookcap-config-test', STREAM_RECHECK_MS: '0' })).toThrow(/STREAM_RECHECK_MS/);
});
