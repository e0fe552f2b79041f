/**
 * PGlite on a thread of its own (embedded deployments). See pglite-client.ts for why.
 *
 * Every message is one call on the PGlite instance; transactions stay open here between the
 * main thread's queries (PGlite's own transaction holds its lock, so other calls wait, as they
 * did when it ran on the main thread).
 */
import { cp } from 'node:fs/promises';
import { PGlite, types, type Results, type Transaction } from '@electric-sql/pglite';
import type { FromPglite, PgliteErrorData, RowMode, ToPglite } from './pglite-protocol';

declare const self: Worker;

/**
 * drizzle-orm's PGlite driver asks for these types as the text Postgres sends (it parses them
 * itself); its parsers are functions, which cannot cross threads, so they are set here.
 */
const AS_TEXT = [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182];
const parsers = Object.fromEntries(AS_TEXT.map((oid) => [oid, (value: string) => value]));
const OPTIONS: Record<RowMode, { rowMode: RowMode; parsers: typeof parsers }> = {
  object: { rowMode: 'object', parsers },
  array: { rowMode: 'array', parsers },
};

let pg: PGlite | null = null;
let dir = '';
let nextTx = 1;

/** An open transaction: its handle, how its callback is woken to end it, and its outcome. */
interface Open {
  tx: Transaction;
  commit: boolean;
  wake: () => void;
  done: Promise<void>;
}
const open = new Map<number, Open>();

/** Thrown inside a transaction's callback to roll it back. */
class Rollback extends Error {}

function client(tx: number | null): PGlite | Transaction {
  if (tx === null) {
    if (!pg) throw new Error('PGlite is not open');
    return pg;
  }
  const t = open.get(tx);
  if (!t) throw new Error(`no open transaction ${tx}`);
  return t.tx;
}

function errorData(err: unknown): PgliteErrorData {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(err)) if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) fields[k] = v;
  return { name: err.name, message: err.message, fields };
}

const result = (r: Results) => ({ rows: r.rows, fields: r.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })), affectedRows: r.affectedRows });

/** Opens a transaction and keeps it open (its callback waits) until `end`. */
function begin(db: PGlite): Promise<number> {
  const id = nextTx++;
  return new Promise<number>((started, failed) => {
    let entry: Open | undefined;
    const done = db.transaction(async (tx) => {
      await new Promise<void>((wake) => {
        entry = { tx, commit: false, wake, done };
        open.set(id, entry);
        started(id);
      });
      if (!entry?.commit) throw new Rollback();
    });
    // Failed before it opened (closed, or BEGIN failed): the begin call fails. Later failures are end's.
    done.catch((err: unknown) => {
      if (!entry) failed(err);
    });
  });
}

/** Commits or rolls back; resolves when PGlite has (a failed COMMIT rejects with its error). */
async function end(id: number, commit: boolean): Promise<null> {
  const t = open.get(id);
  if (!t) throw new Error(`no open transaction ${id}`);
  t.commit = commit;
  t.wake();
  try {
    await t.done;
  } catch (err) {
    if (!(err instanceof Rollback)) throw err;
  } finally {
    open.delete(id);
  }
  return null;
}

async function handle(m: ToPglite): Promise<unknown> {
  switch (m.op) {
    case 'open':
      dir = m.dir;
      pg = new PGlite(dir);
      await pg.waitReady;
      return null;
    case 'query':
      return result(await client(m.tx).query(m.sql, m.params, OPTIONS[m.rowMode]));
    case 'exec':
      return (await client(m.tx).exec(m.sql)).map(result);
    case 'begin':
      if (!pg) throw new Error('PGlite is not open');
      return await begin(pg);
    case 'end':
      return await end(m.tx, m.commit);
    case 'copy': {
      if (!pg) throw new Error('PGlite is not open');
      // A checkpoint first, so the copy needs little WAL replay when it is opened.
      await pg.exec('CHECKPOINT');
      await pg.runExclusive(() => cp(dir, m.to, { recursive: true }));
      return null;
    }
    case 'close':
      await pg?.close();
      pg = null;
      return null;
  }
}

self.onmessage = (event: MessageEvent<ToPglite>) => {
  const m = event.data;
  void handle(m).then(
    (value) => {
      try {
        self.postMessage({ id: m.id, ok: true, value } satisfies FromPglite);
      } catch (err) {
        // An answer that cannot be copied back still answers: the call fails instead of waiting forever.
        self.postMessage({ id: m.id, ok: false, error: errorData(err) } satisfies FromPglite);
      }
    },
    (err: unknown) => self.postMessage({ id: m.id, ok: false, error: errorData(err) } satisfies FromPglite),
  );
};
