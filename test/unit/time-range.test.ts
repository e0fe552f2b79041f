import { describe, expect, test } from 'bun:test';
import { MAX_INSTANT_MS, TimeParseError, TimeRangeError, parseDuration, parseInstant, parseTimeRange } from '../../src/time-range';

const NOW = Date.UTC(2024, 2, 10, 12, 0, 0);

describe('parseDuration', () => {
  test('every unit', () => {
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('15m')).toBe(900_000);
    expect(parseDuration('2h')).toBe(7_200_000);
    expect(parseDuration('7d')).toBe(604_800_000);
    expect(parseDuration('1w')).toBe(604_800_000);
    expect(parseDuration('0s')).toBe(0);
  });

  test('anything else is not a duration', () => {
    for (const text of ['', 's', '15', '15M', '2H', '1.5h', '-2h', '+2h', '2 h', '2hours', 'h2', '1y', '1ms', '1234567890s']) {
      expect(parseDuration(text)).toBeNull();
    }
  });
});

describe('parseInstant', () => {
  test('a duration counts back from now', () => {
    expect(parseInstant('15m', 'from', NOW)).toBe(NOW - 900_000);
    expect(parseInstant('7d', 'from', NOW)).toBe(NOW - 7 * 86_400_000);
    expect(parseInstant(' 30s ', 'to', NOW)).toBe(NOW - 30_000);
  });

  test('a bare integer is ms since the epoch', () => {
    expect(parseInstant('1710072000000', 'from', NOW)).toBe(1_710_072_000_000);
    expect(parseInstant('0', 'from', NOW)).toBe(0);
  });

  test('ISO 8601 with Z, with an offset, with a fraction, date only, no zone (UTC)', () => {
    expect(parseInstant('2024-03-10T12:00:00Z', 'from', NOW)).toBe(NOW);
    expect(parseInstant('2024-03-10T12:00:00.250Z', 'from', NOW)).toBe(NOW + 250);
    expect(parseInstant('2024-03-10T12:00:00.1234567Z', 'from', NOW)).toBe(NOW + 123);
    expect(parseInstant('2024-03-10T13:00:00+01:00', 'from', NOW)).toBe(NOW);
    expect(parseInstant('2024-03-10T06:30:00-0530', 'from', NOW)).toBe(NOW);
    expect(parseInstant('2024-03-10T14:00+02', 'from', NOW)).toBe(NOW);
    expect(parseInstant('2024-03-10', 'from', NOW)).toBe(Date.UTC(2024, 2, 10));
    expect(parseInstant('2024-03-10T12:00', 'from', NOW)).toBe(NOW);
    expect(parseInstant('2024-03-10 12:00:00', 'from', NOW)).toBe(NOW);
    expect(parseInstant('2024-02-29T00:00:00Z', 'from', NOW)).toBe(Date.UTC(2024, 1, 29));
  });

  test('refuses impossible dates and times, other formats, and out-of-range values', () => {
    const bad = [
      '', 'yesterday', 'now', '2024-02-30', '2023-02-29', '2024-13-01', '2024-00-10', '2024-03-10T24:00:00Z',
      '2024-03-10T12:60:00Z', '2024-03-10T12:00:61Z', '2024-03-10T12:00:00+25:00', '10/03/2024', '2024-3-10',
      'Sun, 10 Mar 2024 12:00:00 GMT', '-1', '1e12', '0x10', '12345678901234567', String(MAX_INSTANT_MS + 1),
      // A '+' that was not percent-encoded arrives as a space.
      '2024-03-10T13:00:00 01:00', '999999999w',
    ];
    for (const text of bad) expect(() => parseInstant(text, 'from', NOW)).toThrow(TimeParseError);
  });

  test('the error names the parameter and quotes the value', () => {
    try {
      parseInstant('soon', 'to', NOW);
      throw new Error('did not throw');
    } catch (err) {
      expect(err).toBeInstanceOf(TimeParseError);
      expect((err as Error).message).toStartWith('to: must be');
      expect((err as Error).message).toContain('"soon"');
    }
  });
});

describe('parseTimeRange', () => {
  test('both, either or neither bound', () => {
    expect(parseTimeRange('2h', '1h', NOW)).toEqual({ from: NOW - 7_200_000, to: NOW - 3_600_000 });
    expect(parseTimeRange('2h', undefined, NOW)).toEqual({ from: NOW - 7_200_000 });
    expect(parseTimeRange(undefined, '2024-03-10T12:00:00Z', NOW)).toEqual({ to: NOW });
    expect(parseTimeRange(undefined, undefined, NOW)).toEqual({});
    expect(parseTimeRange('', '', NOW)).toEqual({});
  });

  test('from equal to to is an empty-width window; from after to is refused', () => {
    expect(parseTimeRange('1h', '1h', NOW)).toEqual({ from: NOW - 3_600_000, to: NOW - 3_600_000 });
    expect(() => parseTimeRange('1h', '2h', NOW)).toThrow(TimeRangeError);
    expect(() => parseTimeRange('2024-03-11', '2024-03-10', NOW)).toThrow(/^from: .* is after to/);
  });

  test('a bad bound is reported under its own name', () => {
    expect(() => parseTimeRange('1h', 'later', NOW)).toThrow(/^to: must be/);
    expect(() => parseTimeRange('later', '1h', NOW)).toThrow(/^from: must be/);
  });
});
