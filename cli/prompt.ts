/**
 * Questions asked on a terminal: only when both stdin (the answer) and stderr (the question) are
 * one, so a script, a CI job or `2> log` never waits on a question nobody sees.
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** The first line of stdin, trimmed (`login --key -`: `pass show hookcap | hookcap login --key -`). */
export function firstLineOfStdin(): string {
  return (readFileSync(0, 'utf8').split(/\r?\n/)[0] ?? '').trim();
}

/** Whether a person can be asked: stdin and stderr are terminals. */
export const canAsk = (): boolean => process.stdin.isTTY === true && process.stderr.isTTY === true;

/**
 * Asks `question` on stderr and resolves with the answer, trimmed and lower-cased; '' for Enter
 * alone or end of input (Ctrl-D). Ctrl-C exits 130 at once, as it would at a shell prompt.
 */
export function ask(question: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    let answered = false;
    rl.on('SIGINT', () => {
      process.stderr.write('\n');
      process.exit(130);
    });
    rl.on('close', () => {
      if (!answered) {
        process.stderr.write('\n');
        resolve('');
      }
    });
    rl.question(question, (answer) => {
      answered = true;
      rl.close();
      process.stdin.pause();
      resolve(answer.trim().toLowerCase());
    });
  });
}

/**
 * Asks for a secret (an API key) on stderr without echoing what is typed or pasted, and resolves
 * with it trimmed; Enter or Ctrl-D ends it, Backspace and Ctrl-U edit it, Ctrl-C exits 130.
 */
export function askSecret(question: string): Promise<string> {
  return new Promise((resolve) => {
    const stdin = process.stdin;
    process.stderr.write(question);
    stdin.setRawMode(true);
    stdin.resume();
    let value = '';
    const done = (answer: string | null) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (answer === null) process.exit(130);
      resolve(answer.trim());
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString()) {
        if (ch === '\u0003') return done(null);
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done(value);
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch === '\u0015') value = '';
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** 3412 as "3,412". */
export const count = (n: number): string => n.toLocaleString('en-US');
