/**
 * Builds the dashboard with Bun's bundler into `web/dist/<key>/`, where the key is a hash of the
 * sources and the lockfile: `npm install` builds once (postinstall), and a server start only
 * builds when no output for the current sources exists. Several processes starting at once each
 * build into a private folder and rename it into place; the first rename wins, the rest discard.
 *
 * `bun web/build.ts` builds (if needed) and prints the first-load JS size, raw and gzipped.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const WEB = import.meta.dir;
const ROOT = resolve(WEB, '..');
export const DIST = join(WEB, 'dist');

/** What the server needs to know about one build, written next to it as manifest.json. */
export interface WebManifest {
  key: string;
  /** Output files relative to the build folder, `index.html` included. */
  files: string[];
  /** The stylesheet the server-rendered pages link (`/assets/pages.css` maps to it). */
  pagesCss: string;
  /** JS fetched on first load: the script index.html loads and the chunks it imports statically. */
  firstLoadJs: string[];
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    if (name === 'dist' || name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else out.push(path);
  }
  return out;
}

/** A hash of everything that goes into the bundle: web/ sources and the installed dependency versions. */
export function sourceKey(): string {
  const h = createHash('sha256');
  for (const file of [...sourceFiles(WEB), join(ROOT, 'package-lock.json')]) {
    if (!existsSync(file)) continue;
    h.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return h.digest('hex').slice(0, 16);
}

async function bundle(outdir: string, key: string): Promise<WebManifest> {
  const result = await Bun.build({
    entrypoints: [join(WEB, 'index.html'), join(WEB, 'src', 'styles', 'pages.css')],
    outdir,
    minify: true,
    splitting: true,
    sourcemap: 'none',
    // index.html is served for nested client routes (/endpoints/<slug>), so asset URLs are absolute.
    publicPath: '/',
    define: { 'process.env.NODE_ENV': '"production"' },
    naming: { entry: '[name].[ext]', chunk: 'assets/[name]-[hash].[ext]', asset: 'assets/[name]-[hash].[ext]' },
  });
  if (!result.success) throw new AggregateError(result.logs, `web build failed: ${result.logs.map(String).join('\n')}`);
  const files = result.outputs.map((o) => relative(outdir, o.path));
  // Entry outputs keep their names; hash the ones the HTML does not reference and move them under assets/.
  const placed: string[] = [];
  let pagesCss = '';
  for (const file of files) {
    if (file === 'index.html' || file.startsWith('assets/')) {
      placed.push(file);
      continue;
    }
    const bytes = readFileSync(join(outdir, file));
    const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 8);
    const dot = file.lastIndexOf('.');
    const target = `assets/${file.slice(0, dot)}-${hash}${file.slice(dot)}`;
    mkdirSync(join(outdir, 'assets'), { recursive: true });
    renameSync(join(outdir, file), join(outdir, target));
    placed.push(target);
    if (file === 'pages.css') pagesCss = target;
  }
  if (!pagesCss) throw new Error('web build produced no pages.css');
  const html = readFileSync(join(outdir, 'index.html'), 'utf8');
  const entryJs = [...html.matchAll(/<script[^>]*\ssrc="\/([^"]+)"/g)].map((m) => m[1] ?? '');
  const manifest: WebManifest = { key, files: placed, pagesCss, firstLoadJs: staticClosure(outdir, entryJs) };
  await Bun.write(join(outdir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return manifest;
}

/** The entry scripts and every chunk they import statically (what a browser fetches before the app runs). */
function staticClosure(outdir: string, entries: string[]): string[] {
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop();
    if (file === undefined || seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(join(outdir, file), 'utf8');
    // Static imports only: `import{…}from"./x.js"` and `import"./x.js"`, not `import("./x.js")`.
    for (const m of code.matchAll(/(?:\bfrom|\bimport)\s*"(\.{0,2}\/[^"]+\.js)"/g)) {
      const spec = m[1] ?? '';
      queue.push(relative(outdir, resolve(join(outdir, file, '..'), spec.startsWith('/') ? join(outdir, spec) : spec)));
    }
  }
  return [...seen].sort();
}

function readManifest(dir: string): WebManifest | null {
  try {
    return JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as WebManifest;
  } catch {
    return null;
  }
}

/** Removes other builds (servers hold their files in memory) and private folders left by crashed builds. */
function prune(keep: string): void {
  for (const name of readdirSync(DIST)) {
    if (name === keep) continue;
    const path = join(DIST, name);
    const stale = name.includes('.tmp-') ? Date.now() - statSync(path).mtimeMs > 10 * 60_000 : true;
    if (stale) rmSync(path, { recursive: true, force: true });
  }
}

/** The build folder for the current sources, building it first when there is none. */
export async function ensureWebBuild(): Promise<{ dir: string; manifest: WebManifest; built: boolean }> {
  const key = sourceKey();
  const dir = join(DIST, key);
  const existing = readManifest(dir);
  if (existing) return { dir, manifest: existing, built: false };
  mkdirSync(DIST, { recursive: true });
  const tmp = join(DIST, `${key}.tmp-${process.pid}-${Date.now()}`);
  try {
    await bundle(tmp, key);
    try {
      renameSync(tmp, dir);
    } catch {
      // Another process finished the same build first; use theirs.
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const manifest = readManifest(dir);
  if (!manifest) throw new Error(`web build left no manifest in ${dir}`);
  prune(key);
  return { dir, manifest, built: true };
}

/** First-load JS of a build: raw and gzipped bytes. */
export function firstLoadSize(dir: string, manifest: WebManifest): { raw: number; gzip: number } {
  let raw = 0;
  let gzip = 0;
  for (const file of manifest.firstLoadJs) {
    const bytes = readFileSync(join(dir, file));
    raw += bytes.length;
    gzip += Bun.gzipSync(bytes, { level: 9 }).length;
  }
  return { raw, gzip };
}

if (import.meta.main) {
  const started = performance.now();
  const { dir, manifest, built } = await ensureWebBuild();
  const size = firstLoadSize(dir, manifest);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.log(
    `web: ${built ? 'built' : 'up to date'} ${relative(ROOT, dir)} in ${Math.round(performance.now() - started)} ms; ` +
      `first-load JS ${kb(size.raw)} raw, ${kb(size.gzip)} gzipped (${manifest.firstLoadJs.join(', ')})`,
  );
}
