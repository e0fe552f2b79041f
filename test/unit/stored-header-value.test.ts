import { expect, test } from 'bun:test';
import { storedHeaderValue } from '../../src/stores/captures/row';

test('storedHeaderValue reads one header of stored headers JSON, as visitParamExtractString does, and never throws', () => {
  const headers = JSON.stringify({ 'x-note': 'say "x-a": 1 \\ é', 'x-a': 'it\'s "q"\n', 'x-x-a': 'no' });
  expect(storedHeaderValue(headers, 'x-a')).toBe('it\'s "q"\n');
  expect(storedHeaderValue(headers, 'x-note')).toBe('say "x-a": 1 \\ é');
  expect(storedHeaderValue(headers, 'x')).toBeNull();
  expect(storedHeaderValue(headers, 'note')).toBeNull();
  // Rows of any shape: not a string, unterminated, malformed escapes, not JSON at all.
  expect(storedHeaderValue('{"x-a":["1","2"]}', 'x-a')).toBeNull();
  expect(storedHeaderValue('{"x-a":1}', 'x-a')).toBeNull();
  expect(storedHeaderValue('{"x-a":"open', 'x-a')).toBeNull();
  expect(storedHeaderValue('{"x-a":"bad \\q escape"}', 'x-a')).toBeNull();
  expect(storedHeaderValue('{"x-a":"ends in \\', 'x-a')).toBeNull();
  expect(storedHeaderValue('', 'x-a')).toBeNull();
});
