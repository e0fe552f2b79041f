/**
 * Header values as bytes. Bun hands the receiver header values one character per byte (Latin-1),
 * and the record stores them so: a UTF-8 `café` is stored as `cafÃ©`, a lone Latin-1 `é` (0xE9)
 * as `é`. Everything that re-sends or renders a header starts from these helpers, so the bytes
 * that leave are the bytes that were captured. No server, Node or DOM imports: the API, the CLI
 * and the dashboard's bundle all use it.
 */

// ignoreBOM: a leading byte-order mark is part of the bytes.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** Characters that hide text or reorder it (controls, bidi and other format characters, odd spaces). */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}]|[^\P{Zs} ]/u;

/** Whether every character is one byte (≤ U+00FF): a stored header value, not text. */
export function isByteString(s: string): boolean {
  return !/[^\x00-\xff]/.test(s);
}

/**
 * The bytes a stored header value stands for (one per character). A value holding a character
 * above U+00FF cannot come from the receiver; it is taken as text and encoded as UTF-8.
 */
export function headerBytes(value: string): Uint8Array {
  if (!isByteString(value)) return encoder.encode(value);
  const out = new Uint8Array(value.length);
  for (let i = 0; i < value.length; i++) out[i] = value.charCodeAt(i);
  return out;
}

/** Bytes as a stored header value: one character per byte. */
export function byteString(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return s;
}

/**
 * Text a person typed (a CLI `-H`, argv being UTF-8) as a header value in the stored form: its
 * UTF-8 bytes one character per byte, which Bun's fetch and node:http send byte for byte (they
 * write each character ≤ U+00FF as that one byte and refuse anything above).
 */
export function typedHeaderValue(text: string): string {
  return byteString(encoder.encode(text));
}

/** A stored value's bytes read as UTF-8, or null when it has non-ASCII bytes that are not UTF-8 (or none at all). */
export function strictUtf8Reading(value: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(value) || !isByteString(value)) return null;
  try {
    return strictUtf8.decode(headerBytes(value));
  } catch {
    return null;
  }
}

/**
 * A header value as people read it: when every character is ≤ U+00FF and those bytes are valid
 * UTF-8, the UTF-8 reading, else null (show it as stored). Null too when the reading would hold
 * invisible or direction-changing characters, which could hide or reorder text.
 */
export function utf8Reading(value: string): string | null {
  const text = strictUtf8Reading(value);
  return text === null || HIDDEN.test(text.replace(/\t/g, '')) ? null : text;
}

/** A HAR header object for a stored value (HAR is text): see docs/exports.md. */
export function harHeader(name: string, value: string): { name: string; value: string; _encoding?: 'latin1' } {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(value)) return { name, value };
  const text = strictUtf8Reading(value);
  return text === null ? { name, value, _encoding: 'latin1' } : { name, value: text };
}
