import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { tsvBytes } from '../../src/stores/captures/clickhouse-tsv';
import { ROW_COLUMNS, type CaptureRow } from '../../src/stores/captures/row';

/** TabSeparated as ClickHouse documents it, one character at a time: the oracle for tsvBytes. */
function reference(rows: readonly CaptureRow[]): Buffer {
  const escape = (v: string | number): string => {
    if (typeof v === 'number') return String(v);
    let out = '';
    for (const ch of v) out += ch === '\\' ? '\\\\' : ch === '\t' ? '\\t' : ch === '\n' ? '\\n' : ch === '\r' ? '\\r' : ch === '\0' ? '\\0' : ch;
    return out;
  };
  return Buffer.from(rows.map((r) => `${ROW_COLUMNS.map((c) => escape(r[c])).join('\t')}\n`).join(''), 'utf8');
}

const tricky = fc.constantFrom('\\', '\t', '\n', '\r', '\0', '\\N', 'é', '🎉', '\ud800', '中文');
const text = fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), tricky), { maxLength: 8 }).map((p) => p.join(''));
const row: fc.Arbitrary<CaptureRow> = fc.record({
  id: text, endpoint_id: text, received_at: fc.nat(), method: text, path: text, headers: text, body: text,
  body_encoding: text, query_params: text, content_type: text, ip: text, size: fc.nat(), detected_provider: text,
  detected_event: text, signature: text, response_status: fc.nat(), query: text, search_text: text,
});

describe('tsvBytes', () => {
  test('writes exactly the escaped rows, whatever the starting buffer (property-based)', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 6 }), fc.integer({ min: 0, max: 256 }), (rows, size) => {
        const { bytes, buffer } = tsvBytes(rows, Buffer.alloc(size));
        expect(bytes.equals(reference(rows))).toBe(true);
        expect(bytes.buffer).toBe(buffer.buffer);
      }),
      { numRuns: 300, seed: 20261124 },
    );
  });

  test('a buffer handed back is written over from its start', () => {
    const rows = fc.sample(fc.array(row, { minLength: 1, maxLength: 4 }), { numRuns: 20, seed: 7 });
    let spare: Buffer | undefined;
    for (const batch of rows) {
      const { bytes, buffer } = tsvBytes(batch, spare);
      expect(bytes.equals(reference(batch))).toBe(true);
      spare = buffer;
    }
  });
});
