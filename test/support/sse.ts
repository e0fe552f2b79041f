/** A Server-Sent Events client for tests: real fetch, parsed as the EventSource spec reads a stream (client/sse.ts). */
import { readSse } from '../../client/sse';

export interface SseEvent {
  id: string | null;
  event: string;
  data: string;
}

export interface SseOpenOptions {
  token?: string;
  cookie?: string;
  lastEventId?: string;
}

export class SseClient {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  /** Set when the server ended the stream (or it broke). */
  ended = false;
  endedAt = 0;
  private readonly abort = new AbortController();

  private constructor(readonly response: Response) {}

  /** Opens a stream; resolves once response headers arrive (check `response.status`). */
  static async open(url: string, opts: SseOpenOptions = {}): Promise<SseClient> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.cookie) headers.cookie = opts.cookie;
    if (opts.lastEventId) headers['last-event-id'] = opts.lastEventId;
    const abort = new AbortController();
    const res = await fetch(url, { headers, signal: abort.signal });
    const client = new SseClient(res);
    client.abort.signal.addEventListener('abort', () => abort.abort());
    if (res.ok && res.body) void client.read(res.body);
    else client.ended = true;
    return client;
  }

  /** Opens a stream and waits for its `:ok` comment: from then on every capture reaches it. */
  static async live(url: string, opts: SseOpenOptions = {}): Promise<SseClient> {
    const c = await SseClient.open(url, opts);
    if (c.response.status !== 200) throw new Error(`stream answered ${c.response.status}: ${await c.response.text()}`);
    await c.until(() => c.comments.includes('ok'));
    return c;
  }

  get ids(): string[] {
    return this.events.map((e) => e.id ?? '');
  }

  /** Polls until `check` holds; throws after `ms`. */
  async until(check: () => boolean, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`SSE condition not met in ${ms} ms (events: ${this.events.length}, ended: ${this.ended})`);
      await Bun.sleep(10);
    }
  }

  close(): void {
    this.abort.abort();
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const item of readSse(body)) {
        if (item.kind === 'comment') this.comments.push(item.text);
        else this.events.push({ id: item.id, event: item.event, data: item.data });
      }
    } catch {
      // aborted by close() or the connection broke: either way the stream has ended
    }
    this.ended = true;
    this.endedAt = Date.now();
  }
}
