/** Terminal output: colour only on a TTY (and never with NO_COLOR or --no-color), plain otherwise. */

export interface Style {
  color: boolean;
}

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, gray: 90, bold: 1, dim: 2 } as const;
export type Paint = keyof typeof CODES;

export function paint(style: Style, color: Paint, text: string): string {
  return style.color ? `\u001b[${CODES[color]}m${text}\u001b[0m` : text;
}

/** Colour for stdout: a TTY, NO_COLOR unset, TERM not dumb, and no --no-color. */
export function styleFor(stream: { isTTY?: boolean }, flag: boolean | undefined): Style {
  const env = process.env;
  return { color: flag !== false && stream.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb' };
}

export const clock = (ms: number) => new Date(ms).toTimeString().slice(0, 8);

export function statusColor(status: number): Paint {
  if (status >= 500 || status === 0) return 'red';
  if (status >= 400) return 'yellow';
  if (status >= 300) return 'cyan';
  return 'green';
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * stdout's reader went away (`hookcap tail SLUG --json | head -n 1`, a pager quit): Bun reports
 * the EPIPE as an 'error' event on process.stdout, which without a listener prints a stack trace
 * and leaves `tail` and `listen` running forever with nowhere to write. A command that stops
 * cleanly (listen, tail) says how with `onStdoutClosed`; any other exits 0 at once, as a Unix
 * filter does when its reader has what it wanted. Other write errors (a full disk) exit 1.
 */
let stdoutClosed = false;
let whenClosed: (() => void) | null = null;
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') {
    process.stderr.write(`error: cannot write the output: ${e.message}\n`);
    process.exit(1);
  }
  if (stdoutClosed) return;
  stdoutClosed = true;
  if (whenClosed) whenClosed();
  else process.exit(0);
});

/** Runs `stop` (once) when stdout's reader goes away instead of exiting; returns the undo. */
export function onStdoutClosed(stop: () => void): () => void {
  whenClosed = stop;
  return () => {
    if (whenClosed === stop) whenClosed = null;
  };
}

/** A line on stdout; nothing once its reader has gone. */
export const out = (line: string) => {
  if (!stdoutClosed) process.stdout.write(`${line}\n`);
};
export const err = (line: string) => void process.stderr.write(`${line}\n`);

/**
 * Text a sender chose (an event name read from the body, a path), made safe to print on a
 * terminal: anyone holding a capture URL can put ESC or BEL in a body's `type`, which printed raw
 * would recolour, retitle or clear the developer's terminal (or write its clipboard, on
 * terminals with OSC 52). C0 and C1 controls, DEL and the bidirectional overrides that can
 * disguise text are shown as `\x1b`, `\u202e`; everything else is printed as it is.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (ch) => {
    const code = ch.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}

/**
 * `printable` for text of many lines (an app's answer to `replay`, which may echo what a sender
 * chose: an error page quoting the body): line breaks and tabs are kept, a CRLF is shown as a line
 * break, and every other control character is escaped.
 */
export function printableLines(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.split('\t').map(printable).join('\t'))
    .join('\n');
}

/** The captured path with its query, as the sender wrote it (rebuilt from queryParams for old captures). */
export function pathWithQuery(path: string, query: string): string {
  return printable(query ? `${path}?${query}` : path);
}

/** A progress line on stderr: rewritten in place on a TTY, a line every 10 s otherwise. */
export class Progress {
  private lastDraw = 0;
  private readonly tty = process.stderr.isTTY === true;

  constructor(private readonly quiet: boolean) {}

  update(text: string, force = false): void {
    if (this.quiet) return;
    const now = Date.now();
    if (!force && now - this.lastDraw < (this.tty ? 200 : 10_000)) return;
    this.lastDraw = now;
    if (this.tty) process.stderr.write(`\r\u001b[2K${this.fit(text)}`);
    else process.stderr.write(`${text}\n`);
  }

  /**
   * The line cut to the terminal's width: "\r" and erase-line reach back over one row only, so a
   * line that wrapped would leave its first row behind at every redraw, a stack of stale lines.
   * The text is ASCII (a slug, counts, a size), one column a character.
   */
  private fit(text: string): string {
    const columns = process.stderr.columns ?? 0;
    return columns > 1 && text.length >= columns ? `${text.slice(0, columns - 2)}…` : text;
  }

  done(text: string): void {
    if (this.quiet) return;
    if (this.tty) process.stderr.write(`\r\u001b[2K${text}\n`);
    else process.stderr.write(`${text}\n`);
  }
}
