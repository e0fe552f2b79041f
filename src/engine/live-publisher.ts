/**
 * Publishes acknowledged captures to the bus for live streams, coalesced: every capture that
 * became durable in one group commit resumes in the same microtask turn, so they are collected and
 * sent as one message per endpoint (src/bus/capture-batch.ts) at the end of that turn.
 */
import { encodeBatches } from '../bus/capture-batch';
import { subjects, type Bus } from '../bus/types';

interface Pending {
  id: string;
  json: Uint8Array;
}

export class LivePublisher {
  private pending = new Map<string, Pending[]>();
  private scheduled = false;

  constructor(private readonly bus: Bus) {}

  add(endpointId: string, id: string, json: Uint8Array): void {
    // Bus lost: nothing is queued for it (the NATS client would buffer every record in memory
    // until it reconnects). Streams were ended and catch up from the store.
    if (!this.bus.connected) return;
    const list = this.pending.get(endpointId);
    if (list === undefined) this.pending.set(endpointId, [{ id, json }]);
    else list.push({ id, json });
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.flush());
    }
  }

  private flush(): void {
    this.scheduled = false;
    const pending = this.pending;
    this.pending = new Map();
    for (const [endpointId, records] of pending) {
      for (const message of encodeBatches(records, this.bus.maxPayload)) {
        try {
          this.bus.publish(subjects.capture(endpointId), message);
        } catch {
          // The captures are durable and acknowledged; a stream that misses them catches up
          // from the store on reconnect. The bus reports its own connection trouble.
        }
      }
    }
  }
}
