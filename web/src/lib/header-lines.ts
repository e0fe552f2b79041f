/** Headers edited as text, one `Name: value` per line (what people paste from curl or docs). */

export function headerLines(headers: Readonly<Record<string, string>>): string {
  return Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}

/** The headers in `text`, or the first line that is not `Name: value` (blank lines are skipped). */
export function parseHeaderLines(text: string): { headers: Record<string, string> } | { error: string } {
  const headers: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (name === '') return { error: `Line ${i + 1} is not "Name: value".` };
    headers[name] = line.slice(colon + 1).trim();
  }
  return { headers };
}
