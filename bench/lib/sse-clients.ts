/**
 * SSE clients for bench/stream, as raw TCP sockets (a fetch per client costs the client side more
 * than the server). Driven over stdin, one command a line; answers one line on stdout:
 *   open <n>   opens n more clients and waits for each one's `:ok`  → "ready <clients ready>"
 *   report     → JSON {capture id: [time the event was read, ms on the shared wall clock]}
 *   drop       closes every client and forgets them                 → "dropped"
 *   close      closes every client and exits                        → "closed"
 * Times are performance.timeOrigin + performance.now(), comparable across processes.
 */
const port = Number(process.env.SSE_PORT);
const request = `GET ${process.env.SSE_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${process.env.SSE_TOKEN}\r\nAccept: text/event-stream\r\n\r\n`;
const ID_MARK = Buffer.from('id: req_');
const ID_LENGTH = 30;
const OK_MARK = Buffer.from(':ok\n');

interface Client {
  socket: Awaited<ReturnType<typeof Bun.connect>> | null;
  ready: boolean;
  closed: boolean;
  /** The last bytes of the previous read, so a mark split across reads is still found. */
  tail: Buffer;
}

const clients: Client[] = [];
const seen = new Map<string, number[]>();
const now = () => performance.timeOrigin + performance.now();

function open(c: Client) {
  return Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: {
      open(sock) {
        sock.write(request);
      },
      data(_sock, chunk) {
        const at = now();
        const buf = c.tail.length > 0 ? Buffer.concat([c.tail, chunk]) : chunk;
        if (!c.ready && buf.indexOf(OK_MARK) >= 0) c.ready = true;
        let i = buf.indexOf(ID_MARK);
        while (i >= 0 && i + 4 + ID_LENGTH <= buf.length) {
          const id = buf.toString('latin1', i + 4, i + 4 + ID_LENGTH);
          const times = seen.get(id);
          if (times) times.push(at);
          else seen.set(id, [at]);
          i = buf.indexOf(ID_MARK, i + 1);
        }
        c.tail = buf.subarray(Math.max(0, buf.length - (ID_MARK.length + ID_LENGTH)));
      },
      close() {
        c.closed = true;
      },
    },
  });
}

async function openMore(n: number): Promise<number> {
  for (let i = 0; i < n; i += 100) {
    const batch = Array.from({ length: Math.min(100, n - i) }, (): Client => ({ socket: null, ready: false, closed: false, tail: Buffer.alloc(0) }));
    clients.push(...batch);
    await Promise.all(
      batch.map(async (c) => {
        c.socket = await open(c);
      }),
    );
  }
  while (clients.some((c) => !c.ready && !c.closed)) await Bun.sleep(20);
  return clients.filter((c) => c.ready && !c.closed).length;
}

export {};

for await (const line of console) {
  const [cmd, arg] = line.trim().split(' ');
  if (cmd === 'open') console.log(`ready ${await openMore(Number(arg))}`);
  else if (cmd === 'report') console.log(JSON.stringify(Object.fromEntries(seen)));
  else if (cmd === 'drop') {
    for (const c of clients.splice(0)) c.socket?.end();
    seen.clear();
    console.log('dropped');
  } else if (cmd === 'close') {
    for (const c of clients) c.socket?.end();
    console.log('closed');
    process.exit(0);
  }
}
