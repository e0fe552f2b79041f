/** A Server-Sent Events client for tests: real fetch, parsed as the EventSource spec reads a stream. */
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
    const decoder = new TextDecoder();
    let buf = '';
    let id: string | null = null;
    let event = '';
    let data: string[] = [];
    try {
      for await (const chunk of body) {
        buf += decoder.decode(chunk, { stream: true });
        for (;;) {
          const nl = buf.search(/\r\n|\r|\n/);
          if (nl < 0) break;
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + (buf.startsWith('\r\n', nl) ? 2 : 1));
          if (line === '') {
            if (data.length > 0) this.events.push({ id, event: event || 'message', data: data.join('\n') });
            event = '';
            data = [];
            continue;
          }
          if (line.startsWith(':')) {
            this.comments.push(line.slice(1).trim());
            continue;
          }
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') id = value;
          else if (field === 'event') event = value;
          else if (field === 'data') data.push(value);
        }
      }
    } catch {
      // aborted by close() or the connection broke: either way the stream has ended
    }
    this.ended = true;
    this.endedAt = Date.now();
  }
}
