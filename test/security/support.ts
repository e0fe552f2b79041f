/**
 * Helpers for the security suite: raw HTTP/1.1 over a TCP socket (for what fetch will not send:
 * pipelined requests, odd Host headers, unknown or lower-case methods, unnormalised paths) and a
 * few shared steps.
 */
import { connect } from 'node:net';
import type { Capture } from '../../src/model/capture';
import { call, eventually, newAccount } from '../support/client';

export interface RawExchange {
  /** Every byte the server sent, as latin1 text. */
  text: string;
  /** The responses parsed out of `text`, in order. */
  responses: RawResponse[];
  /** The server closed the connection before the time ran out. */
  closed: boolean;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes `request` on a fresh connection in one write and collects what comes back until the
 * server closes the connection, `expect` responses have arrived, or `ms` pass.
 */
export function rawHttp(port: number, request: string | Uint8Array, opts: { expect?: number; ms?: number } = {}): Promise<RawExchange> {
  const { expect = 1, ms = 5_000 } = opts;
  return new Promise((resolve) => {
    let text = '';
    let closed = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, responses: parseResponses(text), closed });
    };
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (parseResponses(text).length >= expect) finish();
    });
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('error', () => {
      closed = true;
      finish();
    });
    const timer = setTimeout(finish, ms);
  });
}

/** Responses framed by Content-Length (what the service sends); a partial one is left out. */
export function parseResponses(text: string): RawResponse[] {
  const out: RawResponse[] = [];
  let at = 0;
  while (at < text.length) {
    const headEnd = text.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break;
    const lines = text.slice(at, headEnd).split('\r\n');
    const status = Number(lines[0]?.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? '0');
    const bodyStart = headEnd + 4;
    if (text.length < bodyStart + length) break;
    out.push({ status, headers, body: text.slice(bodyStart, bodyStart + length) });
    at = bodyStart + length;
  }
  return out;
}

/** One HTTP/1.1 request as text; `host: null` leaves the Host header out. */
export function rawRequest(
  method: string,
  target: string,
  opts: { host?: string | null; headers?: Record<string, string> | [string, string][]; body?: string } = {},
): string {
  const lines = [`${method} ${target} HTTP/1.1`];
  if (opts.host !== null) lines.push(`Host: ${opts.host ?? 'localhost'}`);
  const headers = Array.isArray(opts.headers) ? opts.headers : Object.entries(opts.headers ?? {});
  for (const [k, v] of headers) lines.push(`${k}: ${v}`);
  if (opts.body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(opts.body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${opts.body ?? ''}`;
}

export const portOf = (url: string): number => Number(new URL(url).port);

/** A fresh account with one endpoint. */
export async function accountWithEndpoint(base: string) {
  const account = await newAccount(base);
  const created = await call(base, 'POST', '/api/endpoints', { token: account.key, body: { name: 'security' } });
  if (created.status !== 201) throw new Error(`endpoint: ${created.status} ${created.text}`);
  return { account, endpoint: created.body as { id: string; slug: string; url: string } };
}

/** Waits until the endpoint lists `n` captures and returns them (newest first). */
export function captured(base: string, key: string, slug: string, n: number, ms = 5_000): Promise<Capture[]> {
  return eventually(async () => {
    const r = await call<Capture[]>(base, 'GET', `/api/endpoints/${slug}/requests`, { token: key });
    return r.status === 200 && r.body.length >= n ? r.body : null;
  }, ms);
}

/**
 * Sets an endpoint's mock response and waits until the receiver serves it: on the server backend
 * the change reaches the receiver's cached snapshot over NATS, a moment after the PATCH answers.
 */
export async function setMock(base: string, key: string, slug: string, mock: { status: number; body: string; headers: Record<string, string> }): Promise<void> {
  const r = await call(base, 'PATCH', `/api/endpoints/${slug}`, { token: key, body: { mockResponse: mock } });
  if (r.status !== 200) throw new Error(`mock: ${r.status} ${r.text}`);
  await eventually(async () => {
    const res = await fetch(`${base}/w/${slug}/mock-check`, { method: 'POST', body: '' });
    return res.status === mock.status && (await res.text()) === mock.body;
  });
}

/** A browser's cookie header for a session token. */
export const sessionCookie = (token: string) => `session=${token}`;
