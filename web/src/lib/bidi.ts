/**
 * The Raw view's text with its bidirectional controls made visible. Raw shows the body as text,
 * but U+202E RIGHT-TO-LEFT OVERRIDE (and the other embeddings, overrides, isolates and marks)
 * reorder what follows, so `‮fdp.exe` reads "exe.pdf" (Trojan Source). As GitHub does for code,
 * the body is then flagged above the view and each such character drawn as a marker, `⟨U+202E⟩`.
 * Only the drawing: Copy body, Download body and Hex keep the bytes.
 */

/** Embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069), LRM, RLM and ALM. */
const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/;
const BIDI_ALL = new RegExp(BIDI.source, 'g');

/** Past this many, markers are plain text rather than marked elements: a body of 300,000 overrides stays quick to draw. */
export const MARKED_LIMIT = 1000;

export const hasBidiControls = (text: string): boolean => BIDI.test(text);

/** `⟨U+202E⟩`: how a bidi control is written in the Raw view. */
export const bidiMarker = (ch: string): string => `⟨U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`;

export type RawPart = string | { marker: string };

/** The text cut at its bidi controls: runs of text, and a marker for each control (the first MARKED_LIMIT). */
export function rawParts(text: string): RawPart[] {
  const parts: RawPart[] = [];
  let from = 0;
  let marked = 0;
  for (const m of text.matchAll(BIDI_ALL)) {
    if (marked === MARKED_LIMIT) break;
    if (m.index > from) parts.push(text.slice(from, m.index));
    parts.push({ marker: bidiMarker(m[0]) });
    marked++;
    from = m.index + m[0].length;
  }
  const rest = text.slice(from);
  if (rest) parts.push(rest.replace(BIDI_ALL, bidiMarker));
  return parts;
}
