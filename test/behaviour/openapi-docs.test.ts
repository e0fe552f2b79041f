/**
 * The docs and the OpenAPI document (/docs/json) name the same /api routes: every `METHOD /api/…`
 * written in README.md or docs/*.md is an operation of the document (a renamed or removed route
 * leaves no stale line), and every /api path of the document is named somewhere in the docs.
 * Path parameters compare by position (`{slug}`, `:slug`, `<slug>` alike); a query is ignored.
 */
import { expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describeBackends } from '../support/suite';

const ROOT = resolve(import.meta.dir, '../..');
const FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const METHOD = '(GET|POST|PUT|PATCH|DELETE)';

const normal = (path: string): string =>
  path
    .replace(/[?#].*$/, '')
    .replace(/\{[^}]+\}|:[A-Za-z_]+|<[^>]+>|…$/g, '{}')
    .replace(/[.:;,]+$/, '')
    .replace(/\/$/, '');

describeBackends('OpenAPI document and the docs', (h) => {
  test('every route the docs name is in /docs/json, and every /api path there is in the docs', async () => {
    const doc = (await (await fetch(`${h.url}/docs/json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = new Set<string>();
    const paths = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/')) continue;
      paths.add(normal(path));
      for (const method of Object.keys(ops)) operations.add(`${method.toUpperCase()} ${normal(path)}`);
    }
    const stale: string[] = [];
    let text = '';
    for (const file of FILES) {
      const body = readFileSync(join(ROOT, file), 'utf8');
      text += body;
      // `GET /api/x`, and `POST`/`DELETE /api/x` for two methods of one path.
      for (const m of body.matchAll(new RegExp(`\\b${METHOD}(?:\`?/\`?${METHOD})? (/api/[^\\s\`),|]+)`, 'g'))) {
        for (const method of [m[1], m[2]]) {
          if (method && !operations.has(`${method} ${normal(m[3]!)}`)) stale.push(`${file}: ${method} ${m[3]}`);
        }
      }
    }
    expect(stale).toEqual([]);
    const named = new Set([...text.matchAll(/\/api\/[^\s`),|?#]+/g)].map((m) => normal(m[0])));
    expect([...paths].filter((p) => !named.has(p))).toEqual([]);
    expect(operations.size).toBeGreaterThan(50);
  });
});
