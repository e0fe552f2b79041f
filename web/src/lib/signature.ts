/**
 * The header a request lacked when the endpoint's check found nothing to verify
 * (`missing_header: <name>`, docs/providers.md), else null: such a request is unsigned (a
 * hand-made test, say), not forged. Keyed on the code, not on its wording.
 */
export function missingSignatureHeader(signatureError: string | null | undefined): string | null {
  const m = /^missing_header: (.+)$/.exec(signatureError ?? '');
  return m ? m[1]! : null;
}
