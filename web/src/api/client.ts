/**
 * The one API module: Eden Treaty over the server's own route types (ApiApp), so a renamed field
 * or route breaks `npm run typecheck`, not the page. Every call goes through `unwrap`, which turns
 * an `{error, code}` or `{error, error_description}` answer (or a network failure) into an ApiError
 * with a readable message.
 */
import { treaty } from '@elysiajs/eden';
import type { ApiApp } from '../../../src/http/api/index';
import type { Capture } from '../../../src/model/capture';

export type { Capture };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** On a limit refusal (team_limit, pin_limit): the limit reached. */
    readonly limit?: number,
  ) {
    super(message);
  }
}

/**
 * State-changing calls ride on the session cookie, so the server only takes them as same-origin
 * JSON: a call without a body still sends `{}` as application/json.
 */
const jsonFetch: typeof fetch = Object.assign(
  (input: RequestInfo | URL, init?: RequestInit) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method === 'GET' || method === 'HEAD' || init?.body != null) return fetch(input, { ...init, credentials: 'same-origin' });
    const headers = new Headers(init?.headers);
    headers.set('content-type', 'application/json');
    return fetch(input, { ...init, headers, body: '{}', credentials: 'same-origin' });
  },
  { preconnect: fetch.preconnect },
);

export const api = treaty<ApiApp>(typeof location === 'undefined' ? 'http://localhost' : location.origin, { fetcher: jsonFetch }).api;

interface TreatyResult<T> {
  data: T | null;
  error: { status: unknown; value: unknown } | null;
  status: number;
}

function messageOf(status: number, value: unknown): { code: string; message: string; limit?: number } {
  // A code the agent API shares (too_many_keys at the API-key limit) comes in SPEC 7.2's shape,
  // the code in `error` and the words in `error_description` (src/errors.ts): the words are shown,
  // where the page had shown "too_many_keys".
  if (value && typeof value === 'object' && 'error' in value && typeof value.error === 'string' && 'error_description' in value && typeof value.error_description === 'string') {
    return { code: value.error, message: value.error_description };
  }
  if (value && typeof value === 'object' && 'error' in value && typeof value.error === 'string') {
    const code = 'code' in value && typeof value.code === 'string' ? value.code : 'error';
    const limit = 'limit' in value && typeof value.limit === 'number' ? value.limit : undefined;
    return { code, message: value.error, limit };
  }
  if (status === 503 && value instanceof Error) return { code: 'network', message: 'Cannot reach the server. Check your connection and try again.' };
  if (status === 429) return { code: 'rate_limited', message: 'Too many requests; wait a moment and try again.' };
  return { code: 'error', message: `The server answered ${status}.` };
}

/** The data of a successful call, or an ApiError. */
export async function unwrap<T>(call: Promise<TreatyResult<T>>): Promise<T> {
  const res = await call;
  if (res.error) {
    const { code, message, limit } = messageOf(res.status, res.error.value);
    throw new ApiError(res.status, code, message, limit);
  }
  return res.data as T;
}

/** A readable sentence for anything thrown by a call or a render. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof Error) return e.message;
  return 'Something went wrong.';
}
