/**
 * A serialisable description of the capture store, so the shipper worker can open its own
 * connection to the same store as the main thread.
 */
import { join } from 'node:path';
import { createClickHouseCaptureStore } from './clickhouse';
import { createSqliteCaptureStore } from './sqlite';
import type { CaptureStore } from './types';

export type CaptureStoreSpec =
  | { kind: 'sqlite'; path: string }
  | { kind: 'clickhouse'; url: string; database: string; username?: string; password?: string };

export function captureStoreSpec(clickhouseUrl: string | null, dataDir: string): CaptureStoreSpec {
  if (!clickhouseUrl) return { kind: 'sqlite', path: join(dataDir, 'captures.sqlite') };
  const u = new URL(clickhouseUrl);
  return {
    kind: 'clickhouse',
    url: `${u.protocol}//${u.host}`,
    database: u.pathname.replace(/^\/+|\/+$/g, '') || 'hookcap',
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
  };
}

export function openCaptureStore(spec: CaptureStoreSpec): CaptureStore {
  return spec.kind === 'sqlite' ? createSqliteCaptureStore({ path: spec.path }) : createClickHouseCaptureStore(spec);
}
