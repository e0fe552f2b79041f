/** Two captures' differences (web/src/lib/diff.ts) as plain functions: JSON by path, forms, lines, binary, and the caps. */
import { expect, test } from 'bun:test';
import type { Capture } from '../../src/model/capture';
import { bodyDiff, headersDiff, MAX_ROWS } from '../../web/src/lib/diff';

const capture = (body: string, contentType = 'application/json', headers: Record<string, string> = {}, bodyEncoding: 'utf8' | 'base64' = 'utf8'): Capture =>
  ({ id: 'req_x', endpointId: 'e', method: 'POST', path: '/', queryParams: {}, query: '', headers, body, bodyEncoding, contentType, size: body.length, ip: '127.0.0.1', receivedAt: 0 }) as unknown as Capture;

test('JSON bodies differ by path: changed, added, removed, odd keys and empty containers', () => {
  const d = bodyDiff(capture('{"a":{"b":1,"c":[1,2]},"x y":true,"e":{}}'), capture('{"a":{"b":2,"c":[1]},"e":[]}'));
  expect(d.by).toBe('field');
  expect(d.rows).toEqual([
    { name: 'a.b', a: '1', b: '2' },
    { name: 'a.c[1]', a: '2', b: null },
    { name: '["x y"]', a: 'true', b: null },
    { name: 'e', a: '{}', b: '[]' },
  ]);
  expect(d.same).toBe(1);
});

test('forms by field (a repeated one counted), text by line around what is shared, binary as sizes', () => {
  expect(bodyDiff(capture('t=1&t=2&u=3', 'application/x-www-form-urlencoded'), capture('t=1&t=9&u=3', 'application/x-www-form-urlencoded')).rows).toEqual([{ name: 't (2)', a: '2', b: '9' }]);
  const lines = bodyDiff(capture('a\nb\nc\nz', 'text/plain'), capture('a\nB\nz', 'text/plain'));
  expect(lines.rows).toEqual([
    { name: 'line 2', a: 'b', b: 'B' },
    { name: 'line 3', a: 'c', b: null },
  ]);
  expect(lines.same).toBe(2);
  expect(bodyDiff(capture('AAEC', 'application/octet-stream', {}, 'base64'), capture('AAED', 'application/octet-stream', {}, 'base64')).by).toBe('bytes');
  expect(bodyDiff(capture('{"a":1}'), capture('{"a":1}')).rows).toEqual([]);
});

test('headers; a hostile body is capped, not walked without end', () => {
  expect(headersDiff(capture('', '', { a: '1', b: '2' }), capture('', '', { b: '3', c: '4' })).rows).toEqual([
    { name: 'a', a: '1', b: null },
    { name: 'b', a: '2', b: '3' },
    { name: 'c', a: null, b: '4' },
  ]);
  const many = (v: number) => JSON.stringify(Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, v])));
  const d = bodyDiff(capture(many(1)), capture(many(2)));
  expect(d.rows.length).toBe(MAX_ROWS);
  expect(d.note).toContain('2,000');
  const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
  expect(bodyDiff(capture(deep), capture(`${deep} `)).rows.length).toBeLessThanOrEqual(1);
});
