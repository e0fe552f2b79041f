/**
 * Questions asked on a terminal: only when both stdin (the answer) and stderr (the question) are
 * one, so a script, a CI job or `2> log` never waits on a question nobody sees.
 */
import { createInterface } from 'node:readline';

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

/** 3412 as "3,412". */
export const count = (n: number): string => n.toLocaleString('en-US');
