/** The `/healthz` report: what this node runs on and how its background parts are doing. */
import type { Role } from './config';
import type { WriteLatency } from './engine/capture-log';
import type { EndpointCacheStats } from './engine/endpoint-cache';
import type { NotifierStats } from './engine/notifier';
import type { RefusalCounts } from './engine/refusals';
import type { ShipperHealth } from './engine/shipper';

export interface Health {
  /** False while a background part is failing (today: the shipper worker, until its replacement recovers). */
  ok: boolean;
  /**
   * `degraded`: the node still acknowledges captures (the capture log holds them), but the capture
   * store refuses inserts or is behind; `shipper` says how many wait and for how long.
   */
  status: 'ok' | 'degraded';
  roles: Role[];
  /**
   * `busConnected`: false while this node has lost NATS (it reconnects by itself; live streams are
   * ended and config changes wait, docs/reliability.md). Always true on the in-process bus.
   * `stateReachable`: false while Postgres fails or does not answer a `SELECT 1` checked every 5 s
   * (src/services/backend-probe.ts); null on PGlite. `capturesReachable`: the same for ClickHouse
   * reads (one row of the captures table every 5 s); null on SQLite. Inserts show in `shipper`.
   */
  backends: { state: string; captures: string; bus: string; busConnected: boolean; stateReachable: boolean | null; capturesReachable: boolean | null };
  /** Receiver nodes: captures acknowledged but not yet stored, the worker's counters and state. */
  shipper: ShipperHealth | null;
  notifications: NotifierStats | null;
  /** Stream nodes: watched endpoints, open clients, and endpoints kept subscribed for a resume. */
  stream: { topics: number; clients: number; idle: number } | null;
  /** Receiver nodes: unknown slugs remembered (so a 404 flood skips Postgres) and their estimated bytes. */
  unknownSlugs: { entries: number; bytes: number } | null;
  /** Receiver nodes: endpoint snapshots cached (ENDPOINT_CACHE_MAX), their estimated bytes, and load queries sent. */
  endpointCache: EndpointCacheStats | null;
  /**
   * Receiver nodes: synchronous log writes since start and the frames they carried (captures per
   * write is the group-commit batch), and how long the recent writes took (`writeMs`, the device's
   * flush that acknowledgements wait for; null before the first).
   */
  captureLog: { groups: number; frames: number; recycled: number; writeMs: WriteLatency | null } | null;
  /**
   * Requests to /w/ refused since start, by reason (src/engine/refusals.ts), every reason present
   * from 0. On every node: a listener without the receiver answers /w/ too (`no_receiver`).
   */
  refusals: RefusalCounts;
}
