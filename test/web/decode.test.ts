/**
 * The dashboard's readings of what a sender encoded (web/src/lib/decode.ts): compressed bodies
 * decompressed with the platform's DecompressionStream (here Bun's; the browser test runs the same
 * code in Chromium), bounded, with corrupt data an answer, not a throw; header values read as UTF-8.
 */
import { describe, expect, test } from 'bun:test';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import type { Capture } from '../../src/model/capture';
import { bodyKind } from '../../web/src/lib/body';
import { headersDiff } from '../../web/src/lib/diff';
import { contentCodings, decodeBody, decodedCapture, headerText, readableHeaderValue, utf8Reading } from '../../web/src/lib/decode';

const json = JSON.stringify({ type: 'invoice.paid', data: { amount: 4200, note: 'café ✓' } });
const plain = new TextEncoder().encode(json);
const latin1 = (bytes: Uint8Array | number[]) => String.fromCharCode(...bytes);

describe('content codings', () => {
  test('parsed from the header in order, lower-cased, identity dropped', () => {
    expect(contentCodings({})).toEqual([]);
    expect(contentCodings({ 'content-encoding': 'GZIP' })).toEqual(['gzip']);
    expect(contentCodings({ 'content-encoding': 'deflate, identity ,br' })).toEqual(['deflate', 'br']);
    expect(contentCodings({ 'content-encoding': 'identity' })).toEqual([]);
  });
});

describe('decodeBody', () => {
  test('gzip, x-gzip, deflate (zlib and raw), br and stacked codings give the bytes sent before compression', async () => {
    for (const [codings, bytes] of [
      [['gzip'], gzipSync(plain)],
      [['x-gzip'], gzipSync(plain)],
      [['deflate'], deflateSync(plain)],
      [['deflate'], deflateRawSync(plain)],
      [['br'], brotliCompressSync(plain)],
      [['deflate', 'gzip'], gzipSync(deflateSync(plain))],
    ] as const) {
      const got = await decodeBody(new Uint8Array(bytes), [...codings]);
      expect(got.ok).toBe(true);
      if (got.ok) expect(new TextDecoder().decode(got.bytes)).toBe(json);
    }
  });

  test('a zip bomb stops at the limit, with a message', async () => {
    const bomb = gzipSync(new Uint8Array(64 * 1024 * 1024)); // 64 MiB of zeros in ~64 KB
    expect(bomb.length).toBeLessThan(100 * 1024);
    const started = performance.now();
    const got = await decodeBody(new Uint8Array(bomb), ['gzip']);
    expect(got).toMatchObject({ ok: false, reason: 'too-large' });
    if (!got.ok) expect(got.message).toBe('Decompressed, the body is larger than 10 MB; decoding stopped there.');
    expect(performance.now() - started).toBeLessThan(5000);
    // Exactly at a limit is fine; one byte over is not.
    expect((await decodeBody(new Uint8Array(gzipSync(new Uint8Array(1000))), ['gzip'], 1000)).ok).toBe(true);
    expect((await decodeBody(new Uint8Array(gzipSync(new Uint8Array(1001))), ['gzip'], 1000)).ok).toBe(false);
  });

  test('corrupt or truncated data and unknown codings are answers, not throws', async () => {
    const corrupt = await decodeBody(new TextEncoder().encode('not gzip at all'), ['gzip']);
    expect(corrupt).toMatchObject({ ok: false, reason: 'corrupt' });
    if (!corrupt.ok) expect(corrupt.message).toStartWith('The body is not valid gzip data');
    const gz = gzipSync(plain);
    expect(await decodeBody(new Uint8Array(gz.subarray(0, gz.length - 10)), ['gzip'])).toMatchObject({ ok: false, reason: 'corrupt' });
    const unknown = await decodeBody(plain, ['zstd']);
    expect(unknown).toMatchObject({ ok: false, reason: 'unsupported', message: 'The body is zstd-encoded, which the dashboard cannot decode.' });
  });

  test('decodedCapture reads the decoded bytes as a body: text as UTF-8, else base64', () => {
    const c = { id: 'req_1', body: 'H4sI', bodyEncoding: 'base64', size: 4, contentType: 'application/json', headers: { 'content-encoding': 'gzip' } } as unknown as Capture;
    const d = decodedCapture(c, plain);
    expect(d).toMatchObject({ body: json, bodyEncoding: 'utf8', size: plain.length, contentType: 'application/json' });
    expect(bodyKind(d)).toBe('json');
    expect(decodedCapture(c, new Uint8Array([0xff, 0]))).toMatchObject({ body: '/wA=', bodyEncoding: 'base64', size: 2 });
  });
});

describe('header values', () => {
  const utf8 = (text: string) => latin1(new TextEncoder().encode(text));

  test('a value whose bytes are UTF-8 reads as its text', () => {
    expect(utf8('café')).toBe('cafÃ©');
    expect(headerText(utf8('café'))).toBe('café');
    expect(headerText(utf8('日本 ✓ 😀'))).toBe('日本 ✓ 😀');
    expect(utf8Reading('plain ascii')).toBeNull();
    expect(headerText('plain ascii')).toBe('plain ascii');
  });

  test('otherwise as stored: Latin-1 bytes that are not UTF-8, characters above U+00FF, invisible or bidi characters', () => {
    expect(headerText(latin1([0x63, 0x61, 0x66, 0xe9]))).toBe('café'); // one byte 0xE9: not UTF-8
    expect(utf8Reading(latin1([0xc3]))).toBeNull(); // a truncated sequence
    expect(utf8Reading('caf\u00c3\u00a9 \u2713')).toBeNull(); // not one character per byte
    expect(utf8Reading(utf8('a\u202eb'))).toBeNull(); // right-to-left override
    expect(utf8Reading(utf8('a\u200bb'))).toBeNull(); // zero-width space
    expect(utf8Reading(utf8('a\u00a0b'))).toBeNull(); // no-break space
    expect(utf8Reading(utf8('tab\there é'))).toBe('tab\there é');
  });

  test('in the Headers table, what would hide or reorder a value is percent-escaped as the bytes that arrived', () => {
    expect(readableHeaderValue(utf8('\u202Efdp.exe'))).toBe('%E2%80%AEfdp.exe'); // UTF-8: read, the override escaped
    expect(readableHeaderValue(utf8('a\u200bb é'))).toBe('a%E2%80%8Bb é');
    expect(readableHeaderValue(latin1([0x61, 0x85, 0x62, 0xe9]))).toBe('a%85bé'); // not UTF-8: a C1 control as its byte
    expect(readableHeaderValue(latin1([0x61, 0xa0, 0xad, 0x7f]))).toBe('a%A0%AD%7F'); // no-break space, soft hyphen, DEL
    expect(readableHeaderValue(utf8('café'))).toBe('café');
    expect(readableHeaderValue('tab\there')).toBe('tab\there');
    expect(readableHeaderValue('a\u202Eb')).toBe('a%E2%80%AEb'); // above U+00FF: not from the receiver, taken as text
  });

  test('header differences are found on the stored values and shown as read', () => {
    const base = { body: '', bodyEncoding: 'utf8', contentType: '' };
    const a = { ...base, headers: { 'x-name': utf8('café'), 'x-same': utf8('ü') } } as unknown as Capture;
    const b = { ...base, headers: { 'x-name': latin1([0x63, 0x61, 0x66, 0xe9]), 'x-same': utf8('ü') } } as unknown as Capture;
    expect(headersDiff(a, b)).toEqual({ rows: [{ name: 'x-name', a: 'café', b: 'café' }], same: 1 });
  });
});
