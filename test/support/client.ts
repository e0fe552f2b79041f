/**
 * A thin HTTP client for tests: real fetch against the real server. Replies to `/api` paths are
 * typed from the server's own routes (`ApiApp`), so a renamed field breaks the test's build.
 */
import type { ApiApp } from '../../src/http/api/index';

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

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

/** Error bodies (SPEC 7.1 `{error, code}`, SPEC 7.2 `{error, error_description}`), read when a test expects a refusal. */
export interface ErrorFields {
  error?: string;
  code?: string;
  error_description?: string;
  /** On a limit refusal (team_limit, pin_limit). */
  limit?: number;
}

type Routes = ApiApp['~Routes'];
type PathOnly<P extends string> = P extends `${infer A}?${string}` ? A : P;
type Segments<P extends string> = P extends `${infer H}/${infer T}` ? [H, ...Segments<T>] : P extends '' ? [] : [P];
type ParamKey<Node> = Extract<keyof Node, `:${string}`>;
/** Follows the path's segments through the route tree; a segment that is no literal route is a `:param`. */
type Walk<Node, Segs> = Segs extends [infer H, ...infer T]
  ? H extends keyof Node
    ? Walk<Node[H], T>
    : [ParamKey<Node>] extends [never]
      ? never
      : Walk<Node[ParamKey<Node>], T>
  : Node;
type RouteAt<P extends string> = PathOnly<P> extends `/${infer Rest}` ? Walk<Routes, Segments<Rest>> : never;
type SuccessOf<R> = R extends { response: infer S } ? S[Extract<keyof S, 200 | 201 | 202 | 204>] : never;
type KeysOfUnion<U> = U extends unknown ? keyof U : never;
type ValueIn<U, K extends PropertyKey> = U extends unknown ? (K extends keyof U ? U[K] : never) : never;
/**
 * A route that answers one of several shapes (the agent flows) reads as one object holding every
 * field of every shape: a test checks the status first, then reads the fields of that answer.
 */
type IsUnion<U, All = U> = U extends unknown ? ([All] extends [U] ? false : true) : never;
export type Flatten<U> = true extends IsUnion<U> ? ([U] extends [object] ? { [K in KeysOfUnion<U>]: ValueIn<U, K> } : U) : U;
type Success<M extends string, P extends string> = SuccessOf<RouteAt<P>[Lowercase<M> & keyof RouteAt<P>]>;
/**
 * What a route answers on success, with the error fields beside it; an /api route without a
 * success body (204s) types only its error fields. Other paths (the receiver, /healthz, pages) are
 * `unknown` unless the caller names their type: `call<Health>(base, 'GET', '/healthz')`.
 */
export type ReplyBody<M extends string, P extends string> = [Success<M, P>] extends [never]
  ? P extends `/api/${string}`
    ? ErrorFields
    : unknown
  : Flatten<Success<M, P>> & ErrorFields;

/** The part of the OpenAPI document (`/docs/json`) tests read. */
export interface OpenApiDoc {
  paths: Record<string, Record<string, unknown>>;
}

/** `call(base, 'POST', '/api/endpoints', …)`: the reply's body is typed from that route. */
export async function call<M extends Method, P extends string>(base: string, method: M, path: P, opts?: CallOptions): Promise<Reply<ReplyBody<M, P>>>;
export async function call<T>(base: string, method: Method, path: string, opts?: CallOptions): Promise<Reply<T>>;
export async function call(base: string, method: Method, path: string, opts: CallOptions = {}): Promise<Reply<unknown>> {
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
  return { status: res.status, headers: res.headers, body: parsed, text };
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

/** The item at `index`, or a failed test: for reading into a list a test has just checked. */
export function itemAt<T>(items: readonly T[], index = 0): T {
  const item = items[index];
  if (item === undefined) throw new Error(`expected an item at ${index}, got ${items.length} item(s)`);
  return item;
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

/** What the receiver answers (`{ok, id}` without a mock response), or an error body. */
export type ReceiverAnswer = { ok?: boolean; id?: string } & ErrorFields;

/** A receiver answer (or another JSON error body) read from a raw fetch. */
export const json = async (r: Response): Promise<ReceiverAnswer> => (await r.json()) as ReceiverAnswer;
