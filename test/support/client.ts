/** A thin HTTP client for tests: real fetch against the real server. */
export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  raw?: string | Uint8Array | ReadableStream;
}

export async function call<T = any>(base: string, method: string, path: string, opts: CallOptions = {}): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | Uint8Array | ReadableStream | undefined = opts.raw;
  if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON; keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

let counter = 0;

/** Signs up a fresh account; returns its session token and a fresh API key. */
export async function newAccount(base: string): Promise<{ session: string; key: string; email: string; userId: string }> {
  const email = `user${Date.now()}${counter++}${Math.random().toString(36).slice(2, 6)}@example.com`;
  const s = await call(base, 'POST', '/api/auth/signup', { body: { email, password: 'correct horse battery' } });
  if (s.status !== 201) throw new Error(`signup failed: ${s.status} ${s.text}`);
  const k = await call(base, 'POST', '/api/api-keys', { token: s.body.token, body: { name: 'test' } });
  if (k.status !== 201) throw new Error(`key failed: ${k.status} ${k.text}`);
  return { session: s.body.token, key: k.body.key, email, userId: s.body.user.id };
}

/** Polls until `check` returns a truthy value or the time runs out (captures ship within ~250 ms). */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`condition not met in ${ms} ms${last ? `: ${String(last)}` : ''}`);
    await Bun.sleep(25);
  }
}

/** A response body as loosely typed JSON, for assertions. */
export const json = async (r: Response): Promise<any> => r.json();
