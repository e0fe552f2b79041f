/**
 * A real HTTP server in the test process that stands in for a notification receiver: it records
 * every request and answers with whatever the test scripted for that path (default 200).
 */
export interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** Answers the n-th request (1-based) to a path. */
export type Script = (n: number, req: Received) => Response | Promise<Response>;

export interface HookReceiver {
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Requests received on a path, in arrival order. */
  received(path: string): Received[];
  /** Scripts the answers for a path. */
  script(path: string, fn: Script): void;
  stop(): void;
}

export function startHookReceiver(): HookReceiver {
  const log = new Map<string, Received[]>();
  const scripts = new Map<string, Script>();
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const u = new URL(request.url);
      const rec: Received = {
        method: request.method,
        path: u.pathname,
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
        at: Date.now(),
      };
      const list = log.get(u.pathname) ?? [];
      list.push(rec);
      log.set(u.pathname, list);
      const fn = scripts.get(u.pathname);
      return fn ? fn(list.length, rec) : new Response('ok');
    },
  });
  const port = server.port ?? 0;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    received: (path) => [...(log.get(path) ?? [])],
    script: (path, fn) => {
      scripts.set(path, fn);
    },
    stop: () => {
      void server.stop(true);
    },
  };
}

/** A path no other test uses. */
export const uniquePath = (label: string) => `/${label}-${Math.random().toString(36).slice(2, 10)}`;
