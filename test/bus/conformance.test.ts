/**
 * The bus contract (src/bus/types.ts), run on both implementations: the in-process bus (embedded)
 * and NATS (server). What the rest of the service relies on: exact bytes, per-subject delivery in
 * publish order, never inline in the publisher, every subscriber served, an unsubscribe that holds,
 * a flush after which a subscription is in effect, and a close that ends delivery.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createLocalBus } from '../../src/bus/local';
import { createNatsBus } from '../../src/bus/nats';
import { decodeJson, encodeJson, type Bus } from '../../src/bus/types';
import { randomId } from '../../src/ids';
import { BACKENDS, NATS_URL } from '../support/backends';

interface BusHarness {
  /** A bus as one node sees it. */
  open(): Promise<Bus>;
}

const harnesses: Record<string, BusHarness> = {
  embedded: { open: async () => createLocalBus() },
  server: {
    // A fresh prefix per suite run, so parallel runs on the shared NATS never hear each other.
    open: () => createNatsBus(NATS_URL, `hookcap_bus_${randomId('t', 8).toLowerCase()}`),
  },
};

/** Collects what a subscription hears; `next(n)` waits for n messages in all (or times out). */
function listen(bus: Bus, subject: string) {
  const got: Uint8Array[] = [];
  let wake: (() => void) | null = null;
  const unsubscribe = bus.subscribe(subject, (data) => {
    got.push(data);
    wake?.();
  });
  return {
    got,
    unsubscribe,
    async next(n: number, ms = 5_000): Promise<Uint8Array[]> {
      const deadline = Date.now() + ms;
      while (got.length < n && Date.now() < deadline) {
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 20);
        });
      }
      return got.slice(0, n);
    },
  };
}

/** Long enough for a message that would arrive to have arrived (a NATS round trip on localhost). */
const quiet = () => Bun.sleep(150);

for (const backend of BACKENDS) {
  const harness = harnesses[backend];
  if (!harness) continue;
  describe(`bus conformance [${backend}]`, () => {
    let bus: Bus;
    // Each test uses its own subjects: nothing one test publishes reaches another.
    const subject = () => randomId('s', 10);

    beforeAll(async () => {
      bus = await harness.open();
    });
    afterAll(async () => {
      await bus.close();
    });

    test('a published message reaches a subscriber of its subject with its bytes exact', async () => {
      const s = subject();
      const sub = listen(bus, s);
      await bus.flush();
      const bytes = new Uint8Array([0, 1, 2, 254, 255, 10, 13, 0]);
      bus.publish(s, bytes);
      bus.publish(s, encodeJson({ slug: 'é∂', n: 1 }));
      const [first, second] = await sub.next(2);
      expect(first && [...first]).toEqual([...bytes]);
      expect(second && decodeJson(second)).toEqual({ slug: 'é∂', n: 1 });
      sub.unsubscribe();
    });

    test('only subscribers of that exact subject hear it', async () => {
      const s = subject();
      const same = listen(bus, s);
      const other = listen(bus, `${s}x`);
      const child = listen(bus, `${s}.child`);
      await bus.flush();
      bus.publish(s, encodeJson(1));
      expect(await same.next(1)).toHaveLength(1);
      await quiet();
      expect(other.got).toHaveLength(0);
      expect(child.got).toHaveLength(0);
      for (const l of [same, other, child]) l.unsubscribe();
    });

    test('dotted subjects (captures.<endpointId>) are delivered like any other', async () => {
      const s = `captures.${randomId('ep')}`;
      const sub = listen(bus, s);
      await bus.flush();
      bus.publish(s, encodeJson({ ref: 'x' }));
      expect(await sub.next(1)).toHaveLength(1);
      sub.unsubscribe();
    });

    test('every subscriber of a subject hears every message, in publish order', async () => {
      const s = subject();
      const a = listen(bus, s);
      const b = listen(bus, s);
      await bus.flush();
      for (let i = 0; i < 200; i++) bus.publish(s, encodeJson(i));
      const expected = Array.from({ length: 200 }, (_, i) => i);
      expect((await a.next(200)).map((d) => decodeJson<number>(d))).toEqual(expected);
      expect((await b.next(200)).map((d) => decodeJson<number>(d))).toEqual(expected);
      a.unsubscribe();
      b.unsubscribe();
    });

    test('a handler never runs inside publish', async () => {
      const s = subject();
      let publishing = false;
      let inline = false;
      let heard = 0;
      const unsubscribe = bus.subscribe(s, () => {
        if (publishing) inline = true;
        heard++;
      });
      await bus.flush();
      publishing = true;
      bus.publish(s, encodeJson('x'));
      publishing = false;
      for (let i = 0; i < 100 && heard === 0; i++) await Bun.sleep(20);
      expect(heard).toBe(1);
      expect(inline).toBe(false);
      unsubscribe();
    });

    test('after unsubscribe a handler hears nothing more; the other subscribers still do', async () => {
      const s = subject();
      const gone = listen(bus, s);
      const kept = listen(bus, s);
      await bus.flush();
      bus.publish(s, encodeJson(1));
      expect(await gone.next(1)).toHaveLength(1);
      gone.unsubscribe();
      gone.unsubscribe(); // twice is harmless
      await bus.flush();
      bus.publish(s, encodeJson(2));
      expect(await kept.next(2)).toHaveLength(2);
      await quiet();
      expect(gone.got).toHaveLength(1);
      kept.unsubscribe();
    });

    test('hasListeners is never false while a subscription to the subject is open', async () => {
      const s = subject();
      const sub = listen(bus, s);
      const other = listen(bus, s);
      expect(bus.hasListeners(s)).toBe(true);
      sub.unsubscribe();
      expect(bus.hasListeners(s)).toBe(true);
      other.unsubscribe();
      // Only the in-process bus knows every subscriber; NATS' may be on other nodes.
      expect(bus.hasListeners(s)).toBe(bus.kind === 'nats');
      expect(bus.hasListeners(subject())).toBe(bus.kind === 'nats');
    });

    test('flush resolves, and maxPayload is a positive size', async () => {
      await bus.flush();
      expect(bus.maxPayload).toBeGreaterThan(0);
      expect(['local', 'nats']).toContain(bus.kind);
    });

    test('close ends delivery and resolves', async () => {
      const own = await harness.open();
      const s = subject();
      const sub = listen(own, s);
      await own.flush();
      own.publish(s, encodeJson(1));
      expect(await sub.next(1)).toHaveLength(1);
      await own.close();
      // A closed bus delivers nothing more, whatever publishing it is asked to do.
      try {
        own.publish(s, encodeJson(2));
      } catch {
        // NATS refuses to publish on a closed connection; either way nothing is delivered.
      }
      await quiet();
      expect(sub.got).toHaveLength(1);
    });
  });
}
