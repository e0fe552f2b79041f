import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import type { Capture } from '../../src/model/capture';
import { TsvWriter } from '../../src/stores/captures/clickhouse-tsv';
import { writeRecordRow } from '../../src/stores/captures/record-tsv';
import { captureToRow, metaSearchText } from '../../src/stores/captures/row';

/** The slow path, the oracle: parse the record, build its row, escape each field. */
function parsedRow(json: string): Buffer {
  const c = JSON.parse(json) as Capture;
  const w = new TsvWriter(Buffer.alloc(0));
  w.row(captureToRow(c, metaSearchText(c)));
  return Buffer.from(w.bytes());
}

/** writeRecordRow's row for `json` placed in the middle of other bytes; null when it declined. */
function fastRow(json: string, initial = 16): Buffer | null {
  const bytes = Buffer.concat([Buffer.from('{"x":1}'), Buffer.from(json), Buffer.from('{"y":2}')]);
  const w = new TsvWriter(Buffer.alloc(initial));
  w.buf.fill(0x2a);
  w.pos = 3; // a row after others
  const ok = writeRecordRow(w, bytes, 7, 7 + Buffer.byteLength(json));
  if (!ok) {
    expect(w.pos).toBe(3); // nothing half-written
    return null;
  }
  expect(w.buf.subarray(0, 3).toString()).toBe('***');
  return Buffer.from(w.buf.subarray(3, w.pos));
}

const tricky = fc.constantFrom('\\', '\t', '\n', '\r', '\0', '\b', '\f', '\u0001', '\u001f', '\u007f', '"', '/', '\\N', 'é', 'İ', 'ΑΣ', '🎉', '\ud800', '\udc00', '中文', 'ABC');
const text = fc.array(fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 6 }), tricky), { maxLength: 6 }).map((p) => p.join(''));
/** Mostly ASCII, as the search columns almost always are (so the fast path runs often). */
const ascii = fc.array(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('\\', '\t', '\n', '"', '\0', 'ABC', '%2F')), { maxLength: 5 }).map((p) => p.join(''));
const name = fc.oneof(ascii, fc.constantFrom('__proto__', 'toString', '1', '42', 'constructor'));
const map = <T>(value: fc.Arbitrary<T>) => fc.array(fc.tuple(name, value), { maxLength: 5 }).map((entries) => {
  const out: Record<string, T> = Object.create(null);
  for (const [k, v] of entries) out[k] = v;
  return out;
});

const capture: fc.Arbitrary<Capture> = fc
  .record({
    id: text,
    endpointId: text,
    method: fc.oneof(fc.constantFrom('POST', 'GET'), text),
    path: fc.oneof(ascii, text),
    headers: fc.oneof(map(ascii), map(text)),
    body: text,
    bodyEncoding: fc.constantFrom('utf8', 'base64'),
    queryParams: fc.oneof(map(fc.oneof(ascii, fc.array(ascii, { maxLength: 3 }))), map(fc.oneof(text, fc.array(text, { maxLength: 3 })))),
    // The raw query as sent (absent in records logged before it was kept).
    query: fc.option(fc.oneof(ascii, text, fc.constantFrom('y=%20a&a=1&a=2&b&c=&d=%zz', 'a=1;b=2', '%FF%00=\\')), { nil: undefined }),
    contentType: text,
    ip: text,
    size: fc.nat(),
    receivedAt: fc.integer({ min: 0, max: 2 ** 45 }),
    detectedProvider: text,
    detectedEvent: text,
    responseStatus: fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }),
    signatureVerified: fc.option(fc.boolean(), { nil: undefined }),
    signatureError: fc.option(fc.option(text, { nil: null }), { nil: undefined }),
    signingProvider: fc.option(text, { nil: undefined }),
  })
  .map((c) => {
    // Absent optional fields are left out of the JSON, as the receiver leaves them out.
    for (const k of ['query', 'responseStatus', 'signatureVerified', 'signatureError', 'signingProvider'] as const) if (c[k] === undefined) delete c[k];
    return c as Capture;
  });

describe('writeRecordRow', () => {
  test('writes exactly the row the parsed record gives, or declines and writes nothing (property-based)', () => {
    let fast = 0;
    fc.assert(
      fc.property(capture, fc.integer({ min: 4, max: 300 }), (c, initial) => {
        const json = JSON.stringify(c);
        const row = fastRow(json, initial);
        if (row === null) return;
        fast++;
        expect(row.toString('latin1')).toBe(parsedRow(json).toString('latin1'));
      }),
      { numRuns: 2000, seed: 20261124 },
    );
    // The declined records are those with non-ASCII search text or a lone surrogate: most are not.
    expect(fast).toBeGreaterThan(200);
  });

  test('keys in any order give the same row', () => {
    const c = fc.sample(capture, { numRuns: 50, seed: 3 });
    for (const one of c) {
      const reversed = JSON.stringify(Object.fromEntries(Object.entries(one).reverse()));
      const row = fastRow(reversed);
      if (row) expect(row.equals(parsedRow(reversed))).toBe(true);
    }
  });

  test('a webhook as the receiver records it takes the fast path', () => {
    const c: Capture = {
      id: 'req_01JBX5X1W1ZV5R9K2P3Q4R5S6T',
      endpointId: 'ep_1',
      method: 'POST',
      path: '/Hooks/Stripe',
      headers: { host: '127.0.0.1:3000', 'content-type': 'application/json; charset=utf-8', 'stripe-signature': 't=1,v1=AB' },
      body: JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded', data: { object: { amount: 2000, note: 'line\nbreak\t"quoted" \\ café' } } }),
      bodyEncoding: 'utf8',
      queryParams: { a: ['1', '2'], B: 'X' },
      query: 'a=1&a=2&B=X&y=%20a&d=%zz',
      contentType: 'application/json; charset=utf-8',
      ip: '127.0.0.1',
      size: 120,
      receivedAt: 1_764_000_000_000,
      detectedProvider: 'stripe',
      detectedEvent: 'payment_intent.succeeded',
      responseStatus: 200,
      signatureVerified: false,
      signatureError: 'no "secret" \\ set',
      signingProvider: 'stripe',
    };
    const json = JSON.stringify(c);
    const row = fastRow(json);
    expect(row).not.toBeNull();
    expect(row?.equals(parsedRow(json))).toBe(true);
    expect(row?.toString()).toContain('/hooks/stripe\\na=1&a=2&b=x\\n127.0.0.1:3000');
    // The raw query is its own column, as sent, before the search text.
    expect(row?.toString()).toContain('\ta=1&a=2&B=X&y=%20a&d=%zz\t/hooks/stripe\\n');
  });

  test('the raw query column: as sent when the record has it, empty for a record logged before it was kept', () => {
    const base = { id: 'req_1', endpointId: 'ep', method: 'GET', path: '/', headers: {}, body: '', bodyEncoding: 'utf8', queryParams: { a: ['1', '2'] }, contentType: '', ip: '', size: 0, receivedAt: 1, detectedProvider: '', detectedEvent: '' };
    const withQuery = JSON.stringify({ ...base, query: 'y=%20a&a=1&a=2&b&c=&d=%zz' });
    const without = JSON.stringify(base);
    for (const json of [withQuery, without]) {
      const row = fastRow(json);
      expect(row).not.toBeNull();
      expect(row?.equals(parsedRow(json))).toBe(true);
    }
    const column = (json: string) => fastRow(json)!.toString().split('\t').at(-2);
    expect(column(withQuery)).toBe('y=%20a&a=1&a=2&b&c=&d=%zz');
    expect(column(without)).toBe('');
    expect(fastRow(JSON.stringify({ ...base, query: 5 }))).toBeNull();
  });

  test('a query name repeated for many values (written once per value in the search column) fits its row', () => {
    const base = { id: 'req_1', endpointId: 'ep', method: 'POST', path: '/', headers: { 'x-a': 'b' }, body: '', bodyEncoding: 'utf8', queryParams: {}, contentType: '', ip: '', size: 0, receivedAt: 1, detectedProvider: '', detectedEvent: '' };
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), fc.array(fc.constantFrom('', 'v', 'X\\y'), { minLength: 1, maxLength: 400 }), fc.integer({ min: 4, max: 4096 }), (name, values, initial) => {
        const json = JSON.stringify({ ...base, queryParams: { [name]: values } });
        const row = fastRow(json, initial);
        if (row) expect(row.equals(parsedRow(json))).toBe(true);
      }),
      { numRuns: 200, seed: 20261124 },
    );
    const json = JSON.stringify({ ...base, queryParams: { ['k'.repeat(60)]: Array.from({ length: 200 }, () => '') } });
    const row = fastRow(json);
    expect(row).not.toBeNull();
    expect(row?.equals(parsedRow(json))).toBe(true);
  });

  test('maps and signatures with escapes JSON.stringify would not write take the slow path', () => {
    const head = '{"id":"req_1","endpointId":"ep","method":"POST","path":"/","body":"","bodyEncoding":"utf8","contentType":"","ip":"","size":0,"receivedAt":1,"detectedProvider":"","detectedEvent":""';
    for (const extra of [
      ',"headers":{"a":"\\/x\\u0041"},"queryParams":{}',
      ',"headers":{"\\u0041":"b"},"queryParams":{}',
      ',"headers":{},"queryParams":{"a":["\\u00e9"]}',
      ',"headers":{},"queryParams":{},"signingProvider":"str\\/ipe"',
      ',"headers":{"a":"\\u0008"},"queryParams":{}',
    ]) {
      const json = `${head}${extra}}`;
      expect(fastRow(json)).toBeNull();
      expect(parsedRow(json).length).toBeGreaterThan(0);
    }
    // The escapes it does write are copied as they are.
    const plain = `${head},"headers":{"a":"q\\"\\\\\\n\\u0001"},"queryParams":{}}`;
    expect(fastRow(plain)?.equals(parsedRow(plain))).toBe(true);
  });

  test('declines what it does not handle, writing nothing', () => {
    const base = { id: 'req_1', endpointId: 'ep', method: 'POST', path: '/', headers: {}, body: '', bodyEncoding: 'utf8', queryParams: {}, contentType: '', ip: '', size: 0, receivedAt: 1, detectedProvider: '', detectedEvent: '' };
    const declined = [
      { ...base, path: '/Ärger' }, // lower-cased by Unicode's rules
      { ...base, headers: { 'x-a': 'é' } },
      { ...base, path: '/\ud800' }, // lone surrogate
      { ...base, pinned: true }, // a key the receiver does not write
      { ...base, size: '0' }, // a value of another type
      { ...base, headers: { 'x-a': ['1'] } },
      { ...base, body: undefined }, // a field missing
    ];
    for (const c of declined) expect(fastRow(JSON.stringify(c))).toBeNull();
    expect(fastRow(`${JSON.stringify(base)} `)).toBeNull(); // not the record's exact text
    expect(fastRow(JSON.stringify(base).slice(0, -1))).toBeNull(); // cut short
    expect(fastRow(JSON.stringify(base))).not.toBeNull();
  });
});
