import { describe, expect, test } from 'bun:test';
import { encodeBatches, refOf, splitBatch } from '../../src/bus/capture-batch';
import { createLocalBus } from '../../src/bus/local';
import { subjects } from '../../src/bus/types';
import { LivePublisher } from '../../src/engine/live-publisher';

const enc = new TextEncoder();
const dec = new TextDecoder();
const id = (n: number) => `req_01JD3Q8Y0M4K6Z2W9T5C7B1N${String(n).padStart(2, '0')}`;
const record = (n: number, pad = 0) => ({ id: id(n), json: enc.encode(JSON.stringify({ id: id(n), body: 'x'.repeat(pad) })) });
const lines = (msg: Uint8Array) => splitBatch(msg).map((l) => dec.decode(l));

describe('live capture batches', () => {
  test('records of one message come back as the same lines, in order', () => {
    const recs = [record(1), record(2), record(3)];
    const [msg, ...rest] = encodeBatches(recs, 1 << 20);
    expect(rest).toHaveLength(0);
    expect(lines(msg as Uint8Array)).toEqual(recs.map((r) => dec.decode(r.json)));
  });

  test('a message never exceeds the limit; a record over it becomes a reference', () => {
    const recs = [record(1, 400), record(2, 400), record(3, 5000), record(4, 400)];
    const limit = 1000;
    const msgs = encodeBatches(recs, limit);
    for (const m of msgs) expect(m.length).toBeLessThanOrEqual(limit);
    const all = msgs.flatMap(lines);
    expect(all).toHaveLength(4);
    expect(all[2]).toBe(`{"ref":"${id(3)}"}`);
    expect(refOf(enc.encode(all[2] as string))).toBe(id(3));
    expect(refOf(recs[0]?.json as Uint8Array)).toBeNull();
    expect(all.filter((l, i) => i !== 2).map((l) => JSON.parse(l).id)).toEqual([id(1), id(2), id(4)]);
  });

  test('a body containing a newline escape stays one line', () => {
    const r = { id: id(1), json: enc.encode(JSON.stringify({ id: id(1), body: 'a\nb\r\n' })) };
    expect(lines(encodeBatches([r, record(2)], 1 << 20)[0] as Uint8Array)).toHaveLength(2);
  });

  test('captures made durable together go out as one message per endpoint', async () => {
    const bus = createLocalBus();
    const got: Record<string, string[][]> = { a: [], b: [] };
    bus.subscribe(subjects.capture('a'), (d) => got.a?.push(lines(d)));
    bus.subscribe(subjects.capture('b'), (d) => got.b?.push(lines(d)));
    const live = new LivePublisher(bus);
    // As after one group commit: every waiter resumes in the same microtask turn.
    const durable = Promise.resolve();
    await Promise.all(
      [1, 2, 3, 4].map(async (n) => {
        await durable;
        live.add(n % 2 ? 'a' : 'b', id(n), record(n).json);
      }),
    );
    await Bun.sleep(5);
    expect(got.a?.map((m) => m.map((l) => JSON.parse(l).id))).toEqual([[id(1), id(3)]]);
    expect(got.b?.map((m) => m.map((l) => JSON.parse(l).id))).toEqual([[id(2), id(4)]]);
  });
});

describe('live publisher flush spacing', () => {
  const flushes = () => {
    const bus = createLocalBus();
    const got: { at: number; ids: string[] }[] = [];
    bus.subscribe(subjects.capture('a'), (d) => got.push({ at: performance.now(), ids: lines(d).map((l) => JSON.parse(l).id) }));
    return { bus, got };
  };

  test('the first group after a quiet spell goes out at once; later ones wait for the spacing and travel together', async () => {
    const { bus, got } = flushes();
    // Wide enough that a stalled CI machine still adds the next two within the window.
    const live = new LivePublisher(bus, 400);
    const t0 = performance.now();
    live.add('a', id(1), record(1).json);
    await Bun.sleep(1);
    expect(got.map((g) => g.ids)).toEqual([[id(1)]]);
    // Two more "group commits" within the window: held, then one message with both.
    live.add('a', id(2), record(2).json);
    await Bun.sleep(5);
    live.add('a', id(3), record(3).json);
    expect(got).toHaveLength(1);
    await Bun.sleep(500);
    expect(got.map((g) => g.ids)).toEqual([[id(1)], [id(2), id(3)]]);
    expect((got[1]?.at as number) - t0).toBeGreaterThanOrEqual(395);
  });

  test('the shutdown flush sends what is held at once, and nothing is held after it', async () => {
    const { bus, got } = flushes();
    const live = new LivePublisher(bus, 10_000);
    live.add('a', id(1), record(1).json);
    await Bun.sleep(1);
    live.add('a', id(2), record(2).json);
    await Bun.sleep(1);
    expect(got).toHaveLength(1);
    live.flush(true);
    await Bun.sleep(1);
    expect(got.map((g) => g.ids)).toEqual([[id(1)], [id(2)]]);
    // A capture made durable after the shutdown flush (a drain past its deadline) is not held.
    live.add('a', id(3), record(3).json);
    await Bun.sleep(1);
    expect(got.map((g) => g.ids)).toEqual([[id(1)], [id(2)], [id(3)]]);
  });
});
