/** A stream node's recent frames per endpoint: what a client reconnecting to the same node missed. */
import { describe, expect, test } from 'bun:test';
import { RecentFrames } from '../../src/services/stream/recent';
import type { EventFrame } from '../../src/services/stream/frames';

const frame = (n: number, size = 0): EventFrame => ({ id: `req_${String(n).padStart(26, '0')}`, receivedAt: n, bytes: new Uint8Array(size) });
const ids = (fs: EventFrame[] | null) => fs?.map((f) => f.receivedAt) ?? null;

describe('RecentFrames', () => {
  test('the frames after an id, in the order they were delivered, not in id order', () => {
    const r = new RecentFrames(100, 10_000);
    // Two receivers' captures reach the node a little out of (receivedAt, id) order.
    for (const n of [1, 3, 2, 5, 4]) r.push(frame(n), 0);
    expect(ids(r.after(frame(3).id, 0))).toEqual([2, 5, 4]);
    expect(ids(r.after(frame(4).id, 0))).toEqual([]);
  });

  test('an id it does not hold gives null (the store is read instead)', () => {
    const r = new RecentFrames(100, 10_000);
    r.push(frame(1), 0);
    expect(r.after(frame(9).id, 0)).toBeNull();
  });

  test('bounded by count: the oldest go first', () => {
    const r = new RecentFrames(3, 10_000);
    for (let n = 1; n <= 500; n++) r.push(frame(n), 0);
    expect(r.after(frame(497).id, 0)).toBeNull();
    expect(ids(r.after(frame(498).id, 0))).toEqual([499, 500]);
  });

  test('bounded by age', () => {
    const r = new RecentFrames(100, 1_000);
    r.push(frame(1), 0);
    r.push(frame(2), 600);
    r.push(frame(3), 1_200);
    expect(r.after(frame(1).id, 1_500)).toBeNull();
    expect(ids(r.after(frame(2).id, 1_500))).toEqual([3]);
    expect(r.after(frame(3).id, 5_000)).toBeNull();
  });

  test('bounded by bytes: large captures do not pin memory', () => {
    const r = new RecentFrames(100, 10_000, 3_000);
    for (let n = 1; n <= 5; n++) r.push(frame(n, 1_000), 0);
    expect(r.after(frame(2).id, 0)).toBeNull();
    expect(ids(r.after(frame(3).id, 0))).toEqual([4, 5]);
  });

  test('capacity 0 keeps nothing', () => {
    const r = new RecentFrames(0, 1_000);
    r.push(frame(1), 0);
    expect(r.after(frame(1).id, 0)).toBeNull();
  });
});
