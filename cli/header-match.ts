/**
 * The regular-expression source `tail`'s `--header name:value` matches a captured value with, in
 * the server's terms (docs/search.md): the value literally, and, when it has non-ASCII characters,
 * also its UTF-8 bytes in the stored one-character-per-byte form (`café` also as `cafÃ©`), since
 * the record holds header values so. Used with the `iu` flags, for the server's case folding.
 */
import { typedSearchForms } from '../src/model/header-bytes';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** ASCII text escaped (`push`); non-ASCII text as `(?:café|cafÃ©)`, each form escaped. */
export function headerValuePattern(value: string): string {
  const [typed, bytes] = typedSearchForms(value);
  return bytes === undefined ? escapeRegExp(typed) : `(?:${escapeRegExp(typed)}|${escapeRegExp(bytes)})`;
}
