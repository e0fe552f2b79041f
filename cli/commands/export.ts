/**
 * `hookcap export SLUG --format har|ndjson|curl`: every capture matching the filters, streamed from
 * the server into a file (or stdout) without holding them in memory, with a progress line on
 * stderr. HAR and NDJSON are the server's own files; curl is rendered here from the NDJSON.
 */
import { createWriteStream, openSync, renameSync, rmSync, statSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { basename, dirname, join } from 'node:path';
import { HookcapError, networkReason, type HookcapClient } from '../../client/index';
import { targetUrl, toCurl } from '../../src/model/render';
import { CliError, EXIT_OK, NothingWritten, nothingWrittenTo, osReason, UsageError } from '../errors';
import { boundMs } from '../options';
import { bytes, Progress } from '../output';

export type ExportFormat = 'har' | 'ndjson' | 'curl';

export interface ExportOptions {
  format: ExportFormat;
  since?: string;
  until?: string;
  q?: string;
  /** `name:value` header filters (docs/search.md); all must hold. */
  header?: string[];
  method?: string;
  /** curl only: send the commands here (base URL + captured path) instead of to the capture URL. */
  to?: string;
  output?: string;
  quiet: boolean;
}

/** A file or stdout that is written with backpressure. */
interface Sink {
  write(chunk: Uint8Array | string): Promise<void>;
  close(): Promise<void>;
  /** Gives up: a file being written is removed, and `-o`'s file is left as it was. */
  abandon(): void;
}

/**
 * Why a file cannot be opened, in words (node's message would name the hidden part file). "No
 * such file" is the OS's answer both for a missing folder and for one that takes no new files
 * (/proc, /sys): which it was is looked up, not assumed.
 */
function cannotWrite(path: string, e: unknown): CliError {
  const code = e instanceof Error && 'code' in e ? e.code : '';
  const why = code === 'ENOENT' || code === 'ENOTDIR' ? folderProblem(dirname(path), osReason(e)) : osReason(e);
  return new CliError(`cannot write ${path}: ${why}`, 'nothing was exported; give -o a file in a folder that exists and that you can write to');
}

/** A folder, a file (or anything else that is not a folder), or nothing there to be seen. */
function kind(p: string): 'folder' | 'file' | null {
  try {
    return statSync(p).isDirectory() ? 'folder' : 'file';
  } catch {
    // ENOENT, and ENOTDIR for a path through a file: `statSync`'s throwIfNoEntry covers only the first.
    return null;
  }
}

/** What is wrong with the folder a file was to be created in. */
function folderProblem(dir: string, reason: string): string {
  let existing = dir;
  while (kind(existing) === null && dirname(existing) !== existing) existing = dirname(existing);
  const found = kind(existing);
  if (existing === dir && found === 'folder') return `the folder ${dir} exists, but a file cannot be created in it (${reason})`;
  if (existing === dir) return `${dir} is a file, not a folder`;
  return `there is no folder ${dir}${found === 'file' ? ` (${existing} is a file)` : ''}`;
}

/**
 * `-o FILE` is written as a part file beside it and renamed over FILE once complete, so an
 * export cut off (Ctrl-C, the server gone, a full disk) never leaves half a HAR or half a
 * replay script under FILE's name, nor truncates the FILE an earlier export wrote. The part file
 * is opened before anything is asked of the server: a wrong folder fails at once.
 */
function openSink(path: string | undefined): Sink {
  const part = path ? join(dirname(path), `.${basename(path)}.${process.pid}.part`) : null;
  let stream: WriteStream | NodeJS.WriteStream = process.stdout;
  if (path && part) {
    if (kind(path) === 'folder') throw cannotWrite(path, new Error('it is a folder'));
    try {
      stream = createWriteStream(part, { fd: openSync(part, 'w') });
    } catch (e) {
      throw cannotWrite(path, e);
    }
  }
  const failed = new Promise<never>((_, reject) => stream.once('error', reject));
  failed.catch(() => {});
  return {
    async write(chunk) {
      if (!stream.write(chunk)) await Promise.race([once(stream, 'drain'), failed]);
    },
    async close() {
      if (!path || !part) return;
      stream.end();
      await Promise.race([once(stream, 'finish'), failed]);
      renameSync(part, path);
    },
    abandon() {
      if (!part) return;
      stream.destroy();
      rmSync(part, { force: true });
    },
  };
}

/** `1 capture`, `13,999 captures`. */
const captures = (n: number): string => `${n.toLocaleString('en-US')} capture${n === 1 ? '' : 's'}`;

const NEWLINE = 0x0a;
const BRACE = 0x7b;

/**
 * Records in a chunk of the server's export: lines that start with "{" (an NDJSON record; a HAR
 * entry, each on its own line after the document's first). `previous` is the byte before the chunk.
 */
function countRecords(chunk: Uint8Array, previous: number): number {
  let n = previous === NEWLINE && chunk[0] === BRACE ? 1 : 0;
  for (let i = chunk.indexOf(NEWLINE); i !== -1 && i + 1 < chunk.length; i = chunk.indexOf(NEWLINE, i + 1)) {
    if (chunk[i + 1] === BRACE) n++;
  }
  return n;
}

export async function exportCaptures(client: HookcapClient, slug: string, opts: ExportOptions): Promise<number> {
  // One upper bound for the count and the export, so the progress total is the export's.
  const filters = { q: opts.q, header: opts.header, method: opts.method, from: opts.since, to: opts.until ?? String(Date.now()) };
  const sink = openSink(opts.output);
  const progress = new Progress(opts.quiet);
  let written = 0;
  let size = 0;
  // Ctrl-C (or SIGTERM) midway: the part file goes, FILE stays as it was, and that is said.
  const onSignal = (signal: NodeJS.Signals) => {
    sink.abandon();
    progress.done(`export of ${slug} stopped after ${captures(written)}${opts.output ? `; ${nothingWrittenTo(opts.output)}` : ''}`);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let counted = false;
  try {
    const total = await client.count({ ...filters, slug });
    counted = true;
    const started = Date.now();
    const show = (force = false) => progress.update(`exporting ${slug}: ${written.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} captures, ${bytes(size)}`, force);
    show(true);
    if (opts.format === 'curl') {
      const base = opts.to ?? (await captureBase(client, slug));
      const head = `#!/bin/sh\n# hookcap export of ${slug}: ${captures(total)}, oldest first. Each command sends one capture again, byte for byte.\n`;
      await sink.write(head);
      size += head.length;
      for await (const c of client.exportRecords(slug, filters)) {
        const text = `\n# ${c.id} ${new Date(c.receivedAt).toISOString()} ${c.method} ${c.path}\n${toCurl(c, targetUrl(base, c), { script: true })}\n`;
        await sink.write(text);
        size += Buffer.byteLength(text);
        written++;
        show();
      }
    } else {
      const download = await client.export(slug, { ...filters, format: opts.format });
      // NDJSON starts with a record; HAR with the document's own line.
      let previous = opts.format === 'ndjson' ? NEWLINE : 0;
      for await (const chunk of download.body) {
        await sink.write(chunk);
        size += chunk.length;
        written += countRecords(chunk, previous);
        previous = chunk.at(-1) ?? previous;
        show();
      }
    }
    await sink.close();
    progress.done(`exported ${captures(written)} of ${slug} (${bytes(size)}) in ${((Date.now() - started) / 1000).toFixed(1)} s${opts.output ? ` to ${opts.output}` : ''}`);
    return EXIT_OK;
  } catch (e) {
    sink.abandon();
    const failure = stoppedBy(e, client, written, counted, opts.output !== undefined);
    // -o's FILE is only ever renamed into place whole: any failure leaves it as it was, which is said.
    throw opts.output ? new NothingWritten(failure, opts.output) : failure;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** What an export that failed after `written` captures (the count done: `counted`) says. */
function stoppedBy(e: unknown, client: HookcapClient, written: number, counted: boolean, toFile: boolean): unknown {
  const again = toFile ? 'run the export again' : undefined;
  // Once the count came, the server gone before the first record (the export asked for and not
  // answered) is the loss midway below, with nothing yet written: said as that is.
  if (e instanceof HookcapError && e.code === 'network' && counted) return new CliError(`export stopped after ${captures(written)}: ${e.message}`, again);
  // The API's own refusals (404, 429 …) keep their words and hints (cli/errors.ts).
  if (e instanceof HookcapError) return e;
  // The server gone midway reads as the runtime's "ECONNRESET: The socket connection was closed
  // unexpectedly. For more information, pass `verbose: true` …", advice meant for fetch's caller.
  const lost = networkReason(e);
  const why = lost ? `the connection to ${client.apiUrl} was lost (${lost})` : e instanceof Error ? e.message : String(e);
  return new CliError(`export stopped after ${captures(written)}: ${why}`, again);
}

/** The endpoint's capture URL; a team member cannot read the endpoint itself, so the API host stands in. */
async function captureBase(client: HookcapClient, slug: string): Promise<string> {
  try {
    return (await client.endpoints.get(slug)).url;
  } catch (e) {
    if (e instanceof HookcapError && e.code === 'not_found') return `${client.apiUrl}/w/${slug}`;
    throw e;
  }
}

/**
 * `--since`/`--until` must describe a real range before anything is fetched. Without `--until` the
 * export ends now, so a `--since` in the future is said here, in the options' names, rather than as
 * the API's `from: … is after to (…)`.
 */
export function checkRange(since: string | undefined, until: string | undefined, now = Date.now()): void {
  if (!since) return;
  if (until === undefined && boundMs(since, now) > now) {
    throw new UsageError(`--since ${since} is in the future`, 'without --until the export stops at the moment it starts; give --since a time before now (30m, 2h, 7d, ISO 8601)');
  }
  if (until !== undefined && boundMs(since, now) > boundMs(until, now)) throw new UsageError('--since is after --until');
}
