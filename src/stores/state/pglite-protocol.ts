/** Messages between the main thread (pglite-client.ts) and the thread that runs PGlite (pglite-worker.ts). */

/** Rows as objects (drizzle's raw queries) or as arrays (its typed selects). */
export type RowMode = 'object' | 'array';

export type ToPglite =
  | { op: 'open'; id: number; dir: string }
  /** `tx`: run inside that open transaction; null: on its own. */
  | { op: 'query'; id: number; tx: number | null; sql: string; params: unknown[]; rowMode: RowMode }
  | { op: 'exec'; id: number; tx: number | null; sql: string }
  /** Opens a transaction; the answer's `value` is its number for later queries. */
  | { op: 'begin'; id: number }
  | { op: 'end'; id: number; tx: number; commit: boolean }
  /** CHECKPOINT, then a copy of the data directory with no query running (backups). */
  | { op: 'copy'; id: number; to: string }
  | { op: 'close'; id: number };

/** A database error as plain data: its message and Postgres' fields (code, detail, constraint …). */
export interface PgliteErrorData {
  name: string;
  message: string;
  fields: Record<string, unknown>;
}

export type FromPglite = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: PgliteErrorData };
