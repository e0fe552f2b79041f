/**
 * `hookcap replay REQUEST_ID --to URL`: sends one stored capture again from this machine (so
 * localhost works), with header changes and another body if asked. `hookcap send SLUG`: a test
 * request through the server's send-test.
 */
import type { HookcapClient } from '../../client/index';
import { hasControlCharacter, typedHeaderValue } from '../../src/model/header-bytes';
import { encodeBody, NOT_FORWARDED, rebuildRequest } from '../../src/model/render';
import { deliver, DeliveryError, INSECURE_HINT, TIMEOUT_HINT } from '../deliver';
import { CliError, EXIT_OK, UsageError } from '../errors';
import { out, paint, printableLines, statusColor, type Style } from '../output';

export interface ReplayOptions {
  to: string;
  headers: [string, string | null][];
  body?: Uint8Array;
  timeout: number;
  json: boolean;
  /** Accept a self-signed HTTPS certificate. */
  insecure?: boolean;
}

/** What is kept of the answer and shown. */
const KEEP_BYTES = 64 * 1024;

export async function replay(client: HookcapClient, id: string, opts: ReplayOptions, style: Style): Promise<number> {
  const capture = await client.requests.get(id);
  const request = rebuildRequest(capture, opts.to);
  for (const [name, value] of opts.headers) {
    // Host may be set, as with curl -H: an app behind name-based virtual hosts (shop.test on 127.0.0.1).
    if (NOT_FORWARDED.has(name) && name !== 'host') throw new UsageError(`-H ${name}: is set by the HTTP client and cannot be given`);
    if (value === null) delete request.headers[name];
    else if (hasControlCharacter(value)) throw new UsageError(`-H ${name}: a header value cannot hold line breaks or control characters`);
    // Typed text is sent as its UTF-8 bytes, as curl -H does; captured values are already bytes.
    else request.headers[name] = typedHeaderValue(value);
  }
  if (opts.body) request.body = opts.body;
  let answer;
  try {
    answer = await deliver(request, { timeoutMs: opts.timeout * 1000, keepBytes: KEEP_BYTES, insecure: opts.insecure === true });
  } catch (e) {
    if (e instanceof DeliveryError) {
      // A slow app is running: "is the app running?" sent its user looking in the wrong place.
      const hint = e.certificate ? INSECURE_HINT : e.unknownHost ? 'check the host name in --to' : e.timedOut ? TIMEOUT_HINT : 'is the app running and listening there?';
      throw new CliError(`${request.method} ${opts.to}: ${e.message}`, hint);
    }
    throw e;
  }
  if (opts.json) {
    out(JSON.stringify({ id, url: opts.to, status: answer.status, headers: answer.headers, ...encodeBody(answer.body), truncated: answer.truncated, latencyMs: Math.round(answer.latencyMs * 10) / 10 }));
    return EXIT_OK;
  }
  out(`${request.method} ${opts.to} → ${paint(style, statusColor(answer.status), String(answer.status))}  ${Math.round(answer.latencyMs)} ms`);
  const text = encodeBody(answer.body);
  // `out` ends the line itself: a body that ends in one (most apps' JSON does) is not followed by a blank line.
  // Escaped as tail escapes a path: the app may echo the replayed body, which a sender chose (`--json` keeps it as it is).
  if (text.bodyEncoding === 'utf8' && text.body !== '') out(printableLines(answer.truncated ? `${text.body}\n…` : text.body.replace(/\r?\n$/, '')));
  return EXIT_OK;
}

export interface SendOptions {
  method?: string;
  headers: [string, string | null][];
  data?: Uint8Array;
  json: boolean;
}

export async function send(client: HookcapClient, slug: string, opts: SendOptions, style: Style): Promise<number> {
  let body: string | undefined;
  if (opts.data) {
    const decoded = encodeBody(opts.data);
    if (decoded.bodyEncoding !== 'utf8') {
      throw new UsageError('send-test takes text bodies only', 'to send bytes, use curl --data-binary @FILE against the endpoint URL');
    }
    body = decoded.body;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of opts.headers) {
    // A test request has no captured header to remove, so `name:` means the header, empty (curl's
    // `-H 'name;'`); it was dropped without a word, and an empty header is a case worth testing.
    if (value === null) {
      headers[name] = '';
      continue;
    }
    // The server sends typed text as its UTF-8 bytes, as replay -H does; the same refusal, here.
    if (hasControlCharacter(value)) throw new UsageError(`-H ${name}: a header value cannot hold line breaks or control characters`);
    headers[name] = value;
  }
  // The server reaches its own receiver over loopback (127.0.0.1:PORT), an address the user never
  // gave: the endpoint's capture URL names where the request went as the user knows it.
  const { url } = await client.endpoints.get(slug);
  const result = { ...(await client.sendTest(slug, { method: opts.method, headers, body })), url };
  if (opts.json) {
    out(JSON.stringify(result));
    return EXIT_OK;
  }
  const status = result.response.status;
  out(`Sent ${(opts.method ?? 'POST').toUpperCase()} to ${url} → ${paint(style, statusColor(status), String(status))}${result.id ? `  captured as ${result.id}` : ''}`);
  return EXIT_OK;
}
