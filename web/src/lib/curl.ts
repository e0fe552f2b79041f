/**
 * A capture as a cURL command that sends the same request again: method, URL, every header as
 * captured, and the body byte for byte (`--data-binary` with the text in single quotes, or piped
 * through `base64 -d` when it is binary, holds a NUL, which no shell argument can carry, or a
 * control character or bidi override, which must not reach a terminal raw).
 * Headers curl would add on its own (Accept, User-Agent, Content-Type, Expect) are removed when
 * the original did not have them; Host, Content-Length and Transfer-Encoding are curl's to set.
 * Header values go through `headerWord` (src/model/render.ts), shared with the server's cURL
 * export, so curl sends the captured bytes.
 */
import type { Capture } from '../../../src/model/capture';
import { bodyBytes, headerWord, isShellSafeText, shellQuote, toBase64 } from '../../../src/model/render';
import { captureUrl } from './url';

export { headerWord, shellQuote };

const CURL_SETS = new Set(['host', 'content-length', 'transfer-encoding']);
/** Header names curl sends by default, and how curl's own spelling of them reads. */
const CURL_DEFAULTS: Record<string, string> = { accept: 'Accept', 'user-agent': 'User-Agent' };

export function curlCommand(c: Capture, endpointUrl: string): string {
  const url = captureUrl(endpointUrl, c);
  const parts = ['curl'];
  if (/[[\]{}]/.test(url)) parts.push('--globoff');
  if (c.method === 'HEAD') parts.push('--head');
  else if (c.method !== 'GET' || c.body !== '') parts.push('-X', shellQuote(c.method));
  parts.push(shellQuote(url));
  for (const [name, value] of Object.entries(c.headers)) {
    if (CURL_SETS.has(name)) continue;
    // `-H 'name:'` would remove the header; `name;` is curl's way to send it empty.
    parts.push('-H', headerWord(value === '' ? `${name};` : `${name}: ${value}`));
  }
  for (const [name, spelled] of Object.entries(CURL_DEFAULTS)) {
    if (!(name in c.headers)) parts.push('-H', shellQuote(`${spelled}:`));
  }
  if (c.body === '') return parts.join(' ');
  if (!('content-type' in c.headers)) parts.push('-H', shellQuote('Content-Type:'));
  // curl asks for 100-continue on large bodies; the original may not have.
  if (!('expect' in c.headers) && c.size >= 1024) parts.push('-H', shellQuote('Expect:'));
  // A NUL, a control character (ESC, BEL: a sender's choice) or a bidi override goes through
  // base64 too: pasted or printed raw, it would act on the terminal or disguise the command.
  if (c.bodyEncoding === 'utf8' && isShellSafeText(c.body)) {
    parts.push('--data-binary', shellQuote(c.body));
    return parts.join(' ');
  }
  const b64 = c.bodyEncoding === 'base64' ? c.body : toBase64(bodyBytes(c));
  parts.push('--data-binary', '@-');
  return `printf %s ${shellQuote(b64)} | base64 -d | ${parts.join(' ')}`;
}
