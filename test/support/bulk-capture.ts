/**
 * Many captures through the real receiver, fast: keep-alive connections with one request in flight
 * each, written and read by hand (fetch costs tens of µs of CPU per request, which on two cores is
 * the server's CPU). Every request must be answered 200 (acknowledged, durable). Pipelining more
 * than one request per connection is not an option: the server closes such connections.
 */
import type { Socket } from 'bun';

export interface BulkOptions {
  /** Receiver base, http://host:port */
  url: string;
  slug: string;
  count: number;
  /** The body of capture i (0-based), sent as application/json. */
  body(i: number): string;
  connections?: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** Sends `count` captures; resolves when all are acknowledged, rejects on any other answer. */
export async function sendCaptures(opts: BulkOptions): Promise<void> {
  const target = new URL(opts.url);
  const connections = opts.connections ?? 32;
  const window = 1;
  let next = 0;
  let acked = 0;
  const request = (i: number) => {
    const body = Buffer.from(opts.body(i));
    return Buffer.concat([
      Buffer.from(`POST /w/${opts.slug}/bulk/${i} HTTP/1.1\r\nhost: ${target.host}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`),
      body,
    ]);
  };
  await new Promise<void>((resolve, reject) => {
    let failed = false;
    const fail = (e: Error) => {
      if (!failed) {
        failed = true;
        reject(e);
      }
    };
    const open = async () => {
      let inFlight = 0;
      let buf = Buffer.alloc(0);
      const fill = (socket: Socket<undefined>) => {
        const parts: Buffer[] = [];
        while (inFlight < window && next < opts.count) {
          parts.push(request(next++));
          inFlight++;
        }
        if (parts.length > 0) socket.write(Buffer.concat(parts));
      };
      await Bun.connect({
        hostname: target.hostname,
        port: Number(target.port),
        socket: {
          open: fill,
          data(socket, chunk) {
            buf = buf.length === 0 ? Buffer.from(chunk) : Buffer.concat([buf, chunk]);
            for (;;) {
              const end = buf.indexOf(HEADER_END);
              if (end < 0) break;
              const head = buf.subarray(0, end).toString('latin1');
              const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
              if (buf.length < end + 4 + length) break;
              const status = Number(head.slice(9, 12));
              buf = buf.subarray(end + 4 + length);
              if (status !== 200) return fail(new Error(`capture answered ${status}: ${head.split('\r\n')[0]}`));
              inFlight--;
              acked++;
              if (acked === opts.count) {
                socket.end();
                return resolve();
              }
            }
            fill(socket);
            if (inFlight === 0) socket.end();
          },
          error: (_s, e) => fail(e),
          close() {
            if (inFlight > 0) fail(new Error('connection closed with requests in flight'));
          },
        },
      });
    };
    for (let c = 0; c < connections; c++) open().catch(fail);
  });
}
