/**
 * A capture's body as bytes and as something to show. Kept free of DOM APIs: the server's tests
 * import it too. `body` is the exact bytes: UTF-8 text, or base64 when bodyEncoding says so.
 */
import type { Capture } from '../../../src/model/capture';

// The server's own decoding: src/model/render.ts is free of server and Node imports for this.
export { bodyBytes } from '../../../src/model/render';

type BodyOf = Pick<Capture, 'body' | 'bodyEncoding'>;

/**
 * Bun's HTTP server hands the receiver no body for GET and HEAD, so one sent with a body (some
 * providers' verification pings, Elasticsearch-style clients) is stored empty while its headers
 * declare one. Said plainly, not "No body." (docs/dashboard.md, docs/api.md).
 */
export function droppedBodyNotice(c: Pick<Capture, 'method' | 'body' | 'headers'>): string | null {
  const method = c.method.toUpperCase();
  if ((method !== 'GET' && method !== 'HEAD') || c.body !== '') return null;
  const length = Number(c.headers['content-length'] ?? '');
  const encoding = c.headers['transfer-encoding'];
  let declared: string;
  if (Number.isSafeInteger(length) && length > 0) declared = `a body of ${length.toLocaleString('en')} ${length === 1 ? 'byte' : 'bytes'} (content-length: ${length})`;
  else if (encoding !== undefined && encoding.trim() !== '') declared = `a body (transfer-encoding: ${encoding})`;
  else return null;
  return `This ${method} request declared ${declared}; hookcap's runtime does not receive bodies of ${method} requests, so none was captured.`;
}

/** The body's text when it is text (valid UTF-8), else null. */
export function bodyText(c: BodyOf): string | null {
  return c.bodyEncoding === 'utf8' ? c.body : null;
}

export type BodyKind = 'json' | 'form' | 'multipart' | 'text' | 'binary' | 'empty';

export function bodyKind(c: Pick<Capture, 'body' | 'bodyEncoding' | 'contentType'>): BodyKind {
  if (c.body === '') return 'empty';
  const type = c.contentType.toLowerCase();
  // A form with a file part (an inbound mail's attachment, an upload) is rarely valid UTF-8 as a
  // whole; its parts are still read from the bytes (the Pretty view), only Raw has no text to show.
  if (c.bodyEncoding === 'base64') return type.includes('multipart/form-data') ? 'multipart' : 'binary';
  if (type.includes('application/x-www-form-urlencoded')) return 'form';
  if (type.includes('multipart/form-data')) return 'multipart';
  if (type.includes('json') || /^\s*[[{]/.test(c.body)) return parseJson(c.body) === undefined ? 'text' : 'json';
  return 'text';
}

/**
 * The text of a body that is not UTF-8 but whose Content-Type declares the charset it is in
 * (`text/xml; charset=ISO-8859-1`, `text/plain; charset=Shift_JIS`), decoded as a browser would
 * decode it (WHATWG labels: ISO-8859-1 reads as windows-1252), with the label as declared; null when
 * nothing is declared, the label is UTF-8 (the bytes are then not what they claim) or unknown.
 */
export function declaredText(c: Pick<Capture, 'contentType'>, bytes: Uint8Array): { charset: string; text: string } | null {
  const label = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(c.contentType)?.[1];
  if (!label) return null;
  let decoder: TextDecoder;
  try {
    // Any label the platform knows; an unknown one throws (Bun's types list only its own few).
    decoder = new TextDecoder(label as ConstructorParameters<typeof TextDecoder>[0]);
  } catch {
    return null;
  }
  if (decoder.encoding === 'utf-8') return null;
  return { charset: label, text: decoder.decode(bytes) };
}

/** The parsed value, or undefined when the text is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `a=1&b=2` as rows, repeated keys kept in order. */
export function formRows(text: string): [string, string][] {
  return [...new URLSearchParams(text)];
}

export const HEX_ROW = 16;

/** One line of a hex dump: offset, hex bytes, printable ASCII. */
export function hexLine(bytes: Uint8Array, row: number): { offset: string; hex: string; ascii: string } {
  const start = row * HEX_ROW;
  const slice = bytes.subarray(start, start + HEX_ROW);
  let hex = '';
  let ascii = '';
  for (let i = 0; i < HEX_ROW; i++) {
    const b = slice[i];
    hex += b === undefined ? '   ' : `${b.toString(16).padStart(2, '0')} `;
    if (i === 7) hex += ' ';
    if (b !== undefined) ascii += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.';
  }
  return { offset: start.toString(16).padStart(8, '0'), hex: hex.trimEnd(), ascii };
}

/** File name extensions by media type (the part before `;`, lower-cased). */
const EXTENSIONS: Record<string, string> = {
  'application/json': 'json',
  'application/x-ndjson': 'ndjson',
  'application/xml': 'xml',
  'text/xml': 'xml',
  'text/plain': 'txt',
  'text/html': 'html',
  'text/csv': 'csv',
  'text/css': 'css',
  'text/markdown': 'md',
  'text/calendar': 'ics',
  'text/javascript': 'js',
  'application/javascript': 'js',
  'application/yaml': 'yaml',
  'application/x-yaml': 'yaml',
  'text/yaml': 'yaml',
  'application/x-www-form-urlencoded': 'txt',
  'multipart/form-data': 'txt',
  'application/pdf': 'pdf',
  'application/zip': 'zip',
  'application/gzip': 'gz',
  'application/x-gzip': 'gz',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/svg+xml': 'svg',
  'image/bmp': 'bmp',
  'image/tiff': 'tiff',
  'image/x-icon': 'ico',
  'image/vnd.microsoft.icon': 'ico',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/ogg': 'ogg',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
};

/**
 * The extension for a body of this content type: by its media type (`+json` and `+xml` suffixes
 * too, any other `text/*` as txt), `bin` when the type is missing or unknown. A form is text (txt),
 * unless its bytes are not UTF-8.
 */
export function bodyExtension(c: Pick<Capture, 'contentType' | 'bodyEncoding'>): string {
  const type = (c.contentType.split(';')[0] ?? '').trim().toLowerCase();
  if (type === 'multipart/form-data' && c.bodyEncoding === 'base64') return 'bin';
  const known = EXTENSIONS[type];
  if (known) return known;
  if (/^[a-z0-9.+-]+\/[a-z0-9.!#$&^_-]+\+json$/.test(type)) return 'json';
  if (/^[a-z0-9.+-]+\/[a-z0-9.!#$&^_-]+\+xml$/.test(type)) return 'xml';
  if (/^text\/[a-z0-9.+-]+$/.test(type)) return 'txt';
  return 'bin';
}

/** The name "Download body" gives the file: the capture's id and the extension of its type. */
export function bodyFilename(c: Pick<Capture, 'id' | 'contentType' | 'bodyEncoding'>): string {
  return `${c.id}.${bodyExtension(c)}`;
}
