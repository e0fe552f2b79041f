/**
 * Many endpoints at once, straight into the state store (tests of the endpoint cache, and
 * bench/tenants.ts with a million of them): one INSERT … SELECT over generate_series, so the
 * database makes the rows itself. Slugs are numbered: `seedSlug(base, i)` is the i-th one, the
 * same text the SQL makes, so a client can address any of them without reading them back.
 */
import { sql } from 'drizzle-orm';
import { SLUG_ALPHABET, isSlug } from '../../src/ids';
import type { Db } from '../../src/stores/state/db';

const SLUG_LENGTH = 12;

/** A base no other seed is likely to share (seeded slugs are base + 0 … base + count - 1). */
export function seedBase(): number {
  // 2^21 slugs per base, under 2^52 in all: exact in a double and in 12 base-32 digits (60 bits).
  return Math.floor(Math.random() * 2 ** 31) * 2 ** 21;
}

/** The slug of seeded endpoint `i`: base + i in base 32, least significant digit first. */
export function seedSlug(base: number, i: number): string {
  let n = base + i;
  let out = '';
  for (let k = 0; k < SLUG_LENGTH; k++) {
    out += SLUG_ALPHABET[n % 32];
    n = Math.floor(n / 32);
  }
  if (!isSlug(out)) throw new Error(`not a slug: ${out}`);
  return out;
}

/** Inserts endpoints base + from … base + to - 1, owned by `userId`, in one statement. */
export async function seedEndpoints(db: Db, opts: { userId: string; base: number; from?: number; to: number }): Promise<void> {
  const n = sql`(${opts.base}::bigint + g)`;
  const digits = Array.from({ length: SLUG_LENGTH }, (_, k) => sql`substr(${SLUG_ALPHABET}, (((${n} >> ${5 * k}) & 31) + 1)::int, 1)`);
  await db.execute(sql`
    INSERT INTO endpoints (id, slug, name, user_id, created_at)
    SELECT 'ep_seed_' || ${n}::text, ${sql.join(digits, sql` || `)}, 'seeded', ${opts.userId}, ${Date.now()}::bigint
    FROM generate_series(${opts.from ?? 0}::bigint, ${opts.to - 1}::bigint) AS g`);
}
