/**
 * The live list's filter: words, each of which a capture must contain (case-insensitive) somewhere
 * in its method, path and query (as sent and as read), provider, event, signature result, answered
 * status, content type, ip or id; a word starting with `-` must not be there. Each field is also
 * there with its name (`method:post`, `provider:stripe`, `event:charge.failed`, `status:500`,
 * `type:application/json`, `signed`, `no-signature` (an unsigned one), `bad-signature`), so a word can
 * be precise.
 */
import type { Capture } from '../api/client';
import { missingSignatureHeader } from './signature';
import { captureQuery, readableCaptureQuery, readablePath } from './url';

const texts = new WeakMap<Capture, string>();

function textOf(c: Capture): string {
  let t = texts.get(c);
  if (t === undefined) {
    // As the row's badge: `unsigned` (no header to check), told from a failed check. `signed` stays
    // a word of its own ("unsigned" would contain it), so the unsigned ones say `no-signature`.
    const sig = c.signatureVerified === undefined ? '' : c.signatureVerified ? 'signed' : missingSignatureHeader(c.signatureError) ? 'no-signature' : 'bad-signature';
    t = [
      `method:${c.method}`,
      `${c.path}${captureQuery(c)}`,
      `${readablePath(c.path)}${readableCaptureQuery(c)}`,
      c.detectedProvider ? `provider:${c.detectedProvider}` : '',
      c.detectedEvent ? `event:${c.detectedEvent}` : '',
      sig,
      c.responseStatus !== undefined ? `status:${c.responseStatus}` : '',
      c.contentType ? `type:${c.contentType}` : '',
      c.ip,
      c.id,
    ]
      .join('\n')
      .toLowerCase();
    texts.set(c, t);
  }
  return t;
}

/** The captures the filter keeps, in order; the same array when the filter is empty. */
export function filterCaptures(items: readonly Capture[], filter: string): readonly Capture[] {
  const words = filter.toLowerCase().split(/\s+/).filter((w) => w !== '' && w !== '-');
  if (words.length === 0) return items;
  const want = words.filter((w) => !w.startsWith('-'));
  const not = words.filter((w) => w.startsWith('-')).map((w) => w.slice(1));
  return items.filter((c) => {
    const t = textOf(c);
    return want.every((w) => t.includes(w)) && !not.some((w) => t.includes(w));
  });
}

/**
 * Whether an endpoint's name or slug holds every word of `filter` (case-insensitive): the
 * endpoint lists' Filter endpoints and the breadcrumb's Switch endpoint.
 */
export function endpointMatches(e: { name: string; slug: string }, filter: string): boolean {
  const text = `${e.name} ${e.slug}`.toLowerCase();
  return filter
    .toLowerCase()
    .split(/\s+/)
    .every((word) => text.includes(word));
}
