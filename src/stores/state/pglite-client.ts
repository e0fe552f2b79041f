/**
 * PGlite on a thread of its own, behind the part of PGlite's interface that drizzle-orm's PGlite
 * driver and db.ts use (`query`, `exec`, `transaction`).
 *
 * Why: PGlite's heap (its WebAssembly memory and its JavaScript) on the receiver's thread makes
 * that thread's garbage collections slower. In bench/capture-stages at 15,000 captures/s, an idle
 * PGlite instance loaded beside the capture pipeline took the receiver's GC pauses from a median of
 * 1.0–1.2 ms to 2.4–2.7 ms, the longest from 2.6–4.1 to 5.4–5.7 ms, and the p99 from 3.2–3.5 to
 * 5.3–5.6 ms (docs/benchmarks.md). A worker has a heap and a collector of its own. Each call now
 * crosses threads (a message each way): API calls on a fresh embedded server were 0.3–0.6 ms slower
at the median (docs/benchmarks.md).
 *
 * Errors come back as Errors with Postgres' fields (`code`, `detail`, `constraint` …) copied on.
 */
import type { FromPglite, PgliteErrorData, RowMode, ToPglite } from './pglite-protocol';

type Call = ToPglite extends infer T ? (T extends { id: number } ? Omit<T, 'id'> : never) : never;

interface Result<T = unknown> {
  rows: T[];
  fields: { name: string; dataTypeID: number }[];
  affectedRows?: number;
}

/** What a query is asked with: drizzle passes `{rowMode, parsers}`; the parsers are set in the worker. */
interface QueryOptions {
  rowMode?: RowMode;
}

function toError(data: PgliteErrorData): Error {
  const err = new Error(data.message);
  err.name = data.name;
  Object.assign(err, data.fields);
  return err;
}

/** A query handle: the whole database, or one open transaction. */
class PgliteQueries {
  constructor(
    protected readonly remote: PgliteRemote,
    protected readonly tx: number | null,
  ) {}

  query<T = Record<string, unknown>>(sql: string, params: unknown[] = [], options: QueryOptions = {}): Promise<Result<T>> {
    return this.remote.call({ op: 'query', tx: this.tx, sql, params, rowMode: options.rowMode ?? 'object' }) as Promise<Result<T>>;
  }

  exec(sql: string): Promise<Result[]> {
    return this.remote.call({ op: 'exec', tx: this.tx, sql }) as Promise<Result[]>;
  }
}

/** How long close waits for PGlite (an open transaction holds it) before ending the thread. */
const CLOSE_WAIT_MS = 5_000;

/** Bun's Worker (the dashboard's type check sees this file with the DOM's Worker, which has no ref). */
type BunWorker = Worker & { ref(): void; unref(): void };

/** The thread and its calls in flight. */
class PgliteRemote {
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private gone: Error | null = null;

  constructor(private readonly worker: BunWorker) {
    worker.onmessage = (event: MessageEvent<FromPglite>) => {
      const m = event.data;
      const p = this.pending.get(m.id);
      if (!p) return;
      this.settled(m.id);
      if (m.ok) p.resolve(m.value);
      else p.reject(toError(m.error));
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      // Ended, not left running: it holds PGlite's memory and its data directory.
      this.fail(new Error(`PGlite thread failed: ${event.message || 'error'}`));
      worker.terminate();
    };
    worker.addEventListener('close', () => this.fail(new Error('PGlite thread exited')));
    // Kept alive only while a call is in flight: an idle database holds no process open.
    worker.unref();
  }

  call(message: Call): Promise<unknown> {
    if (this.gone) return Promise.reject(this.gone);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      try {
        this.worker.postMessage({ ...message, id } as ToPglite);
      } catch (err) {
        // A parameter that cannot be copied to the other thread: this call fails, nothing was sent.
        this.settled(id);
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  /** Every later call fails with `err`; calls in flight fail now. */
  fail(err: Error): void {
    this.gone ??= err;
    const pending = [...this.pending.values()];
    this.pending.clear();
    this.worker.unref();
    for (const p of pending) p.reject(err);
  }

  terminate(): void {
    this.fail(new Error('PGlite is closed'));
    this.worker.terminate();
  }

  private settled(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
  }
}

export class PgliteClient extends PgliteQueries {
  private constructor(remote: PgliteRemote) {
    super(remote, null);
  }

  /** Starts the thread and opens the database in `dir` (created if missing). */
  static async open(dir: string): Promise<PgliteClient> {
    const remote = new PgliteRemote(new Worker(new URL('./pglite-worker.ts', import.meta.url).href) as BunWorker);
    try {
      await remote.call({ op: 'open', dir });
    } catch (err) {
      remote.terminate();
      throw err;
    }
    return new PgliteClient(remote);
  }

  /** Runs `fn` in one transaction: committed if it resolves, rolled back if it throws. */
  async transaction<T>(fn: (tx: PgliteQueries) => Promise<T>): Promise<T> {
    const tx = (await this.remote.call({ op: 'begin' })) as number;
    let value: T;
    try {
      value = await fn(new PgliteQueries(this.remote, tx));
    } catch (err) {
      await this.remote.call({ op: 'end', tx, commit: false }).catch(() => {});
      throw err;
    }
    await this.remote.call({ op: 'end', tx, commit: true });
    return value;
  }

  /** A CHECKPOINT, then a copy of the data directory into `to` with no query running meanwhile. */
  async copyDataDir(to: string): Promise<void> {
    await this.remote.call({ op: 'copy', to });
  }

  /**
   * Closes the database and ends the thread. PGlite's close waits for an open transaction; after
   * CLOSE_WAIT_MS the thread is ended anyway (what was not committed is not in the database).
   */
  async close(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([this.remote.call({ op: 'close' }), new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    } finally {
      clearTimeout(timer);
      this.remote.terminate();
    }
  }
}
