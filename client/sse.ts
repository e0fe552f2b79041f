/**
 * Server-Sent Events read the way the EventSource standard reads them: lines end in CR, LF or
 * CRLF; `id`, `event` and `data` fields; a blank line dispatches; lines starting with ":" are
 * comments (the stream's `:ok` and `:ping`).
 */
export type SseItem = { kind: 'event'; id: string | null; event: string; data: string } | { kind: 'comment'; text: string };

export async function* readSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseItem> {
  const decoder = new TextDecoder();
  let buf = '';
  let id: string | null = null;
  let event = '';
  let data: string[] = [];
  for await (const chunk of body) {
    buf += decoder.decode(chunk, { stream: true });
    for (;;) {
      const nl = buf.search(/[\r\n]/);
      if (nl < 0) break;
      // A CR at the very end may be the first half of a CRLF still on its way.
      if (buf[nl] === '\r' && nl === buf.length - 1) break;
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + (buf.startsWith('\r\n', nl) ? 2 : 1));
      if (line === '') {
        if (data.length > 0) yield { kind: 'event', id, event: event || 'message', data: data.join('\n') };
        event = '';
        data = [];
        continue;
      }
      if (line.startsWith(':')) {
        yield { kind: 'comment', text: line.slice(1).trim() };
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
}
