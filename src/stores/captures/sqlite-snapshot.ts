/**
 * A consistent copy of the embedded capture store while it is in use. `VACUUM INTO` runs in one
 * read transaction on its own connection: under WAL the shipper keeps writing meanwhile, and the
 * copy is the database as of that transaction's start, compacted, in one self-contained file.
 * It runs in a worker thread: on the main thread it would hold the receiver for as long as the
 * copy takes (seconds for a large store).
 */
import { Database } from 'bun:sqlite';

type Reply = { ok: true } | { ok: false; message: string };

/** Writes a snapshot of the SQLite database at `from` to `to` (which must not exist). */
export function snapshotSqlite(from: string, to: string): Promise<void> {
  const worker = new Worker(new URL('./sqlite-snapshot-worker.ts', import.meta.url).href);
  return new Promise<void>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<Reply>) => {
      worker.terminate();
      if (event.data.ok) resolve();
      else reject(new Error(`SQLite snapshot failed: ${event.data.message}`));
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(new Error(`SQLite snapshot failed: ${event.message}`));
    };
    worker.postMessage({ from, to });
  });
}

/** The copy itself, on whichever thread calls it (the worker). */
export function vacuumInto(from: string, to: string): void {
  // Read-write, as the service opens it: a read-only connection cannot set up a WAL index it finds missing.
  const db = new Database(from, { readwrite: true, create: false });
  try {
    // A writer may hold the lock for a moment (a checkpoint of the WAL); wait instead of failing.
    db.run('PRAGMA busy_timeout = 10000');
    db.query('VACUUM INTO ?').run(to);
  } finally {
    db.close();
  }
}

/** Opens a restored copy and runs SQLite's own consistency check; returns its row count. */
export function checkSqliteCopy(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    const check = db.query<{ quick_check: string }, []>('PRAGMA quick_check').get();
    if (check?.quick_check !== 'ok') throw new Error(`captures.sqlite failed its check: ${check?.quick_check ?? 'no answer'}`);
    return db.query<{ n: number }, []>('SELECT count(*) AS n FROM captures').get()?.n ?? 0;
  } finally {
    db.close();
  }
}
