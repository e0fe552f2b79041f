/**
 * cli/output.ts printable: what a sender chose, made safe for a terminal. Detection cleans event
 * names since 2026-11-28 (docs/providers.md), but captures stored before hold them raw.
 */
import { describe, expect, test } from 'bun:test';
import { pathWithQuery, printable } from '../../cli/output';

describe('printable', () => {
  test('C0, DEL, C1 and bidi overrides are shown as escapes; other text is unchanged', () => {
    expect(printable('invoice.paid\u001b]0;pwned\u0007\u001b[31m\u202e\u0085\u007f\u2066')).toBe('invoice.paid\\x1b]0;pwned\\x07\\x1b[31m\\u202e\\x85\\x7f\\u2066');
    expect(printable('facture.payée ✓ \ufffd')).toBe('facture.payée ✓ \ufffd');
  });

  test('a path and its query are escaped together', () => {
    expect(pathWithQuery('/a\u001bb', 'x=\u0007')).toBe('/a\\x1bb?x=\\x07');
    expect(pathWithQuery('/a', '')).toBe('/a');
  });
});
