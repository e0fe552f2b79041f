/**
 * What the cluster test drives through the load balancer: a steady stream of captures (each body
 * unique, never retried, so a body stored twice can only be a duplicate made on the way) and a
 * live SSE client that reconnects with Last-Event-ID as EventSource does.
 */
import { SseClient } from '../support/sse';

/** Captures at a fixed rate; records which were acknowledged (2xx with an id) and which failed. */
export class SteadyLoad {
  /** Acknowledged: body → capture id. */
  readonly acked = new Map<string, string>();
  readonly failed: { body: string; why: string }[] = [];
  sent = 0;
  private stopped = false;
  private readonly inflight = new Set<Promise<void>>();
  private loop: Promise<void> | null = null;

  constructor(
    private readonly url: string,
    private readonly perSecond: number,
  ) {}

  start(): void {
    const started = performance.now();
    this.loop = (async () => {
      while (!this.stopped) {
        const due = Math.floor(((performance.now() - started) / 1000) * this.perSecond);
        while (this.sent < due) this.send(`capture-${this.sent++}`);
        await Bun.sleep(5);
      }
    })();
  }

  /** Acknowledged so far (to wait for some progress). */
  get count(): number {
    return this.acked.size;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
    await Promise.all(this.inflight);
  }

  private send(body: string): void {
    const p = (async () => {
      try {
        const r = await fetch(this.url, { method: 'POST', body, signal: AbortSignal.timeout(15_000) });
        const text = await r.text();
        const id = r.ok ? (JSON.parse(text) as { id?: string }).id : undefined;
        if (id) this.acked.set(body, id);
        else this.failed.push({ body, why: `${r.status} ${text.slice(0, 120)}` });
      } catch (err) {
        this.failed.push({ body, why: String(err) });
      }
    })();
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p));
  }
}

/** A live stream that reconnects after every end with Last-Event-ID, like a browser's EventSource. */
export class ResumingStream {
  readonly ids: string[] = [];
  /** The Last-Event-ID each reconnect sent, and the status it got. */
  readonly reconnects: { lastEventId: string | null; status: number; at: number }[] = [];
  private stopped = false;
  private current: SseClient | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  /** Resolves once the first connection is live. */
  async start(): Promise<void> {
    const first = await SseClient.live(this.url, { token: this.token });
    this.loop = this.run(first);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.close();
    await this.loop;
  }

  private async run(first: SseClient): Promise<void> {
    let c: SseClient | null = first;
    while (!this.stopped) {
      if (c) {
        this.current = c;
        let seen = 0;
        while (!c.ended || seen < c.events.length) {
          for (; seen < c.events.length; seen++) {
            const e = c.events[seen];
            if (e?.event === 'request' && e.id) this.ids.push(e.id);
          }
          if (this.stopped) return;
          await Bun.sleep(10);
        }
      }
      if (this.stopped) return;
      const lastEventId = this.ids.at(-1) ?? null;
      c = await SseClient.open(this.url, { token: this.token, lastEventId: lastEventId ?? undefined }).catch(() => null);
      this.reconnects.push({ lastEventId, status: c?.response.status ?? 0, at: Date.now() });
      if (!c || c.response.status !== 200) {
        c = null;
        await Bun.sleep(200);
      }
    }
  }
}
