import { expect, test } from 'bun:test';
import { unlistedPeriod } from '../../src/services/retention';

test('the period most endpoints are on is the one not listed', () => {
  // Many free endpoints, a few paid ones: the free ones are not listed.
  expect(unlistedPeriod(new Map([[7, 1_000_000], [30, 10_000], [90, 50]]))).toBe(7);
  expect(unlistedPeriod(new Map([[7, 10], [30, 500]]))).toBe(30);
  expect(unlistedPeriod(new Map([[7, 3]]))).toBe(7);
});

test('on a tie the longer period wins (nothing to keep out of its removal)', () => {
  expect(unlistedPeriod(new Map([[7, 1], [30, 1]]))).toBe(30);
});

test('past the limit of longer-retention endpoints listed by name, the longest period is taken', () => {
  const counts = new Map([[7, 1_000_000], [30, 150_000], [90, 10]]);
  // 30 days would leave 10 endpoints to list by name: within a limit of 100, over one of 5.
  expect(unlistedPeriod(counts, 100_000)).toBe(30);
  expect(unlistedPeriod(counts, 5)).toBe(90);
  expect(unlistedPeriod(counts, 200_000)).toBe(7);
});
