/**
 * `hookcap tail` reconnecting with a backlog, as listen does: the real binary, a real server (both
 * backends) that ends streams every 3 s (STREAM_MAX_MS). A laptop that sleeps with tail running:
 * the process is suspended (SIGSTOP), the server ends its stream meanwhile, captures keep coming,
 * and on waking (SIGCONT) it reconnects with them waiting. On a terminal it asks, as listen; off
 * one it prints them all unless --backlog says otherwise (a script reads every line tail prints).
 */
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';
import { cliEnv, runCli, RunningCli, TtyCli, type CliEnv } from './support';

const cleanups = cleanupAfterAll();
const SLEEP_MS = 4_000;

interface Setup {
  key: string;
  slug: string;
  url: string;
  cli: CliEnv;
}

describeBackends(
  'hookcap tail reconnecting with a backlog',
  (h) => {
    async function setup(): Promise<Setup> {
      const a = await newAccount(h.url);
      const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'tail' } })).body;
      const cli = cliEnv({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
      cleanups.push(() => cli.cleanup());
      return { key: a.key, slug: ep.slug, url: ep.url, cli };
    }

    const send = async (s: Setup, body: string): Promise<string> => {
      const r = await fetch(`${s.url}/${body}`, { method: 'POST', body });
      return r.headers.get('x-request-id') ?? '';
    };
    const stored = (s: Setup, n: number) =>
      eventually(async () => (await call<{ count: number }>(h.url, 'GET', `/api/search/requests/count?slug=${s.slug}`, { token: s.key })).body.count === n, 15_000);

    /** Suspends `pid` past the stream's end, sends `away` meanwhile; returns their ids. */
    const sleepThrough = async (pid: number, s: Setup, away: string[], total: number, wake: number[] = []): Promise<string[]> => {
      const ids: string[] = [];
      process.kill(pid, 'SIGSTOP');
      try {
        // The stream open at the suspension (at most 3 s old) has ended before anything is sent.
        await Bun.sleep(SLEEP_MS);
        for (const b of away) ids.push(await send(s, b));
        await stored(s, total);
      } finally {
        for (const p of [pid, ...wake]) process.kill(p, 'SIGCONT');
      }
      return ids;
    };

    async function tail(s: Setup, extra: string[]): Promise<RunningCli> {
      const cli = new RunningCli(['tail', s.slug, ...extra], s.cli.env);
      cleanups.push(() => void cli.stop('SIGKILL'));
      await cli.until(() => cli.stderr.includes('Ctrl-C to stop'));
      return cli;
    }
    /** The capture ids tail printed (one on each line). */
    const printed = (cli: RunningCli) => cli.lines.map((l) => /req_\w+/.exec(l)?.[0] ?? '');

    test('off a terminal: all by default (a script sees every capture); --backlog skip goes on live with one line saying how to print them; newest prints the newest', async () => {
      const s = await setup();
      const all = await tail(s, ['--max-backlog', '2']);
      const zero = await send(s, 'zero');
      await all.until(() => all.lines.length === 1);
      const a = await sleepThrough(all.proc.pid, s, ['a1', 'a2', 'a3'], 4);
      await all.until(() => all.lines.length === 4, 30_000);
      expect(printed(all)).toEqual([zero, ...a]);
      expect(all.stderr).not.toContain('not printing');
      expect(await all.stop()).toBe(0);

      const skip = await tail(s, ['--max-backlog', '2', '--backlog', 'skip']);
      const first = await send(s, 'one');
      await skip.until(() => skip.lines.length === 1);
      await sleepThrough(skip.proc.pid, s, ['b1', 'b2', 'b3'], 8);
      await skip.until(() => skip.stderr.includes('reconnecting: from now on'), 30_000);
      expect(skip.stderr).toContain(
        `not printing the 3 captures that arrived while tail was disconnected (more than --max-backlog 2); going on live. To print them: --backlog all (or newest), or hookcap tail ${s.slug} --since ${first}\n`,
      );
      expect(skip.stderr).toContain(`reconnecting: from now on (3 captures after ${first} not printed)`);
      const live = await send(s, 'live');
      await skip.until(() => skip.lines.length === 2);
      await Bun.sleep(500);
      expect(printed(skip)).toEqual([first, live]);
      // Within the limit the reconnect resumes as before, quietly.
      const c = await sleepThrough(skip.proc.pid, s, ['c1', 'c2'], 11);
      await skip.until(() => skip.lines.length === 4, 30_000);
      expect(printed(skip).slice(2)).toEqual(c);
      expect(skip.stderr.split('not printing').length).toBe(2);
      expect(await skip.stop()).toBe(0);

      const newest = await tail(s, ['--max-backlog', '2', '--backlog', 'newest']);
      const two = await send(s, 'two');
      await newest.until(() => newest.lines.length === 1);
      const d = await sleepThrough(newest.proc.pid, s, ['d1', 'd2', 'd3'], 15);
      await newest.until(() => newest.stderr.includes('reconnecting: the newest 2 of the 3 captures received meanwhile, then live'), 30_000);
      await newest.until(() => newest.lines.length === 3);
      await Bun.sleep(500);
      expect(printed(newest)).toEqual([two, ...d.slice(1)]);
      expect(await newest.stop()).toBe(0);
    });

    test('on a terminal: asks as listen does ("Print them?"); N goes on live', async () => {
      const s = await setup();
      const tty = new TtyCli(['tail', s.slug, '--max-backlog', '2'], s.cli.env);
      cleanups.push(() => tty.kill());
      await tty.until(() => tty.output.includes('Ctrl-C to stop'));
      const first = await send(s, 'one');
      await tty.until(() => tty.output.includes(first));
      // script(1) runs the CLI as its child (exec'd, so the CLI itself): that is the process that sleeps.
      const children = readFileSync(`/proc/${tty.proc.pid}/task/${tty.proc.pid}/children`, 'utf8').trim().split(/\s+/);
      expect(children.length).toBe(1);
      const away = await sleepThrough(Number(children[0]), s, ['b1', 'b2', 'b3'], 4, [tty.proc.pid]);
      await tty.until(() => tty.output.includes('[y/N/newest]'), 30_000);
      expect(tty.output).toContain(`3 captures arrived on ${s.slug} while tail was disconnected (the last one received came at `);
      expect(tty.output).toContain('Print them? y: all 3, oldest first · N: none, go on live · newest: the newest 2 [y/N/newest]');
      // Nothing is printed while the question waits.
      await Bun.sleep(300);
      for (const id of away) expect(tty.output).not.toContain(id);
      tty.type('\n');
      await tty.until(() => tty.output.includes('reconnecting: from now on (3 captures after'));
      const live = await send(s, 'live');
      await tty.until(() => tty.output.includes(live));
      for (const id of away) expect(tty.output).not.toContain(id);
      tty.type('\u0003');
      expect(await tty.exited(), tty.output).toBe(0);
    });

    test('--backlog and --max-backlog are checked as listen checks them', async () => {
      const s = await setup();
      for (const [args, message] of [
        [['--backlog', 'maybe'], '--backlog must be one of ask, all, newest, skip'],
        [['--max-backlog', 'lots'], '--max-backlog must be a whole number ≥ 0'],
        [['--backlog', 'newest', '--max-backlog', '10001'], '--backlog newest takes --max-backlog 10,000 at most'],
      ] as [string[], string][]) {
        const r = await runCli(['tail', s.slug, ...args], s.cli.env);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(message);
      }
    });
  },
  { STREAM_MAX_MS: '3000' },
);
