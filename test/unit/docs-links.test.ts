/**
 * Every relative link in README.md and docs/*.md names a file that exists and, with a `#fragment`,
 * a heading of that file (GitHub's anchors: lower case, punctuation dropped, spaces to hyphens,
 * `-1`, `-2` for repeats). A renamed heading or a moved doc shows up here instead of as a dead
 * link for a reader.
 */
import { expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dir, '../..');
const FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** Markdown without fenced code blocks and inline code, where `[x](y)` is no link. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors of one Markdown file. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = m[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // a link keeps its text
      .replace(/<[^>]+>/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

test('every relative link in README.md and docs/ points to an existing file and heading', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const file of FILES) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const href = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue; // absolute URL, mailto:
      const [path = '', fragment] = href.split('#', 2) as [string, string | undefined];
      const target = path === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), decodeURIComponent(path));
      checked++;
      if (!existsSync(target)) {
        broken.push(`${file}: ${href} (no file ${relative(ROOT, target)})`);
        continue;
      }
      if (fragment === undefined || !target.endsWith('.md') || statSync(target).isDirectory()) continue;
      if (!anchors(readFileSync(target, 'utf8')).has(decodeURIComponent(fragment))) {
        broken.push(`${file}: ${href} (no heading #${fragment} in ${relative(ROOT, target)})`);
      }
    }
  }
  expect(broken).toEqual([]);
  expect(checked).toBeGreaterThan(100);
});

test('anchors follow GitHub: punctuation dropped, spaces become hyphens, repeats numbered', () => {
  const a = anchors('# Set-up: two commands\n## An agent\'s key can be bound\n### `/api/agent/sandbox/endpoints` (unclaimed keys only)\n## Limits\n## Limits\n');
  expect([...a]).toEqual(['set-up-two-commands', 'an-agents-key-can-be-bound', 'apiagentsandboxendpoints-unclaimed-keys-only', 'limits', 'limits-1']);
});
