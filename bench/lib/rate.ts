/**
 * Open-loop load at a fixed rate: requests are scheduled on a clock and latency is measured from
 * the scheduled send time, so a slow server cannot hide its queueing (no coordinated omission).
 *
 * Requests go over a pool of keep-alive TCP connections written and read by hand (one request in
 * flight per connection) rather than through fetch: fetch costs the generator tens of µs of CPU
 * per request, which on a 2-core machine steals the server's CPU and shows up as server latency.
 * The scheduler wakes about once a millisecond, so up to ~1 ms of every latency is the generator's;
 * bench/capture reports the same measurement against raw Bun.serve as the floor.
 */
export interface RateResult {
  sent: number;
  ok: number;
  p50: number;
  p99: number;
  max: number;
}

interface Conn {
  socket: import('bun').Socket<undefined> | null;
  /** Scheduled time of the request in flight; -1 when idle. */
  due: number;
  buf: Buffer;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** Length of the first complete response in buf and its status, or null when incomplete. */
function response(buf: Buffer): { length: number; status: number } | null {
  const end = buf.indexOf(HEADER_END);
  if (end < 0) return null;
  const head = buf.toString('latin1', 0, end);
  const status = Number(head.slice(9, 12));
  const cl = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  const length = end + 4 + (cl?.[1] ? Number(cl[1]) : 0);
  return buf.length >= length ? { length, status } : null;
}

export async function constantRate(
  url: string,
  body: string,
  rps: number,
  seconds: number,
  connections = 128,
  headers: Record<string, string> = {},
  /** The path of request `n` (bench/tenants spreads captures over endpoints); the URL's own by default. */
  pathAt?: (n: number) => string,
): Promise<RateResult> {
  const target = new URL(url);
  const port = Number(target.port || 80);
  const payload = Buffer.from(body);
  const build = (path: string) =>
    Buffer.concat([
      Buffer.from(
        `POST ${path} HTTP/1.1\r\nhost: ${target.host}\r\ncontent-type: application/json\r\n` +
          Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('') +
          `content-length: ${payload.length}\r\n\r\n`,
      ),
      payload,
    ]);
  const request = build(`${target.pathname}${target.search}`);
  let sentCount = 0;

  const total = Math.floor(rps * seconds);
  const latencies = new Float64Array(total);
  let done = 0;
  let ok = 0;
  const waiting: number[] = []; // due times of requests no connection was free for
  let waitingHead = 0;
  const idle: Conn[] = [];
  let finished: (() => void) | null = null;

  const send = (c: Conn, due: number) => {
    c.due = due;
    c.socket?.write(pathAt ? build(pathAt(sentCount++)) : request);
  };
  const complete = (c: Conn, status: number) => {
    latencies[done++] = performance.now() - c.due;
    if (status >= 200 && status < 300) ok++;
    c.due = -1;
    if (c.socket === null) return;
    if (waitingHead < waiting.length) send(c, waiting[waitingHead++] as number);
    else idle.push(c);
    if (done === total) finished?.();
  };

  const conns: Conn[] = await Promise.all(
    Array.from({ length: connections }, async () => {
      const c: Conn = { socket: null, due: -1, buf: Buffer.alloc(0) };
      c.socket = await Bun.connect({
        hostname: target.hostname,
        port,
        socket: {
          data(_s, chunk) {
            c.buf = c.buf.length === 0 ? Buffer.from(chunk) : Buffer.concat([c.buf, chunk]);
            for (let r = response(c.buf); r && c.due >= 0; r = response(c.buf)) {
              c.buf = c.buf.subarray(r.length);
              complete(c, r.status);
            }
          },
          close() {
            // A dropped connection fails its request; it is counted as sent but not ok.
            c.socket = null;
            if (c.due >= 0) complete(c, 0);
          },
        },
      });
      return c;
    }),
  );
  idle.push(...conns.filter((c) => c.socket !== null));

  const start = performance.now();
  const allDone = new Promise<void>((resolve) => {
    finished = resolve;
  });
  for (let i = 0; i < total; ) {
    const now = performance.now();
    for (let due = start + (i * 1000) / rps; due <= now && i < total; due = start + (++i * 1000) / rps) {
      const c = idle.pop();
      if (c) send(c, due);
      else waiting.push(due);
    }
    if (i < total) await Bun.sleep(1);
  }
  // Give stragglers time, then stop waiting (a lost response would otherwise hang the bench).
  await Promise.race([allDone, Bun.sleep(30_000)]);
  for (const c of conns) c.socket?.end();

  const measured = latencies.subarray(0, done).sort();
  const q = (f: number) => measured[Math.min(measured.length - 1, Math.floor(f * measured.length))] ?? Number.NaN;
  return { sent: total, ok, p50: q(0.5), p99: q(0.99), max: measured.at(-1) ?? Number.NaN };
}
