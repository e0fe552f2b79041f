/**
 * The backlog rule of listen and tail: resuming (at start, or on a reconnect after a laptop slept)
 * with more than --max-backlog captures waiting, they are forwarded or printed only when asked for.
 */
import type { HookcapClient, StreamOptions } from '../client/index';
import { idTime } from '../src/ids';
import { err, paint, type Style } from './output';
import { ask, canAsk, count } from './prompt';
import { when } from './stream-status';

export const BACKLOG_CHOICES = ['ask', 'all', 'newest', 'skip'] as const;
export type Backlog = (typeof BACKLOG_CHOICES)[number];

/** Where a stream starts, said in words for the first status line. */
export interface Start {
  after?: string;
  said: string;
}

/**
 * The most `--backlog newest` can skip to: the newest N are found with a search offset of N, and
 * the server refuses offsets over SEARCH_MAX_OFFSET (10,000 by default). A larger --max-backlog
 * with `--backlog newest` is a usage error; with `ask`, the question then offers y/N only.
 */
export const MAX_NEWEST = 10_000;

/** A backlog found: `lastId` is where forwarding stopped, `waiting` how many captures came after it. */
interface BacklogFound {
  lastId: string;
  waiting: number;
  /** At start: "while listen was stopped"; on a reconnect: "while listen was disconnected". */
  stopped: boolean;
  /** The rest of the question's first line, in brackets. */
  context: string;
}

/** The backlog rule's settings: --backlog and --max-backlog, as listen and tail take them. */
export interface BacklogRule {
  backlog: Backlog;
  maxBacklog: number;
}

/** How a command words its backlog: listen forwards captures, tail prints them. */
export interface BacklogWords {
  command: 'listen' | 'tail';
  /** The question's verb and object: "Forward them to URL", "Print them". */
  ask: string;
  /** "forwarding", "printing". */
  doing: string;
  /** "forward", "print". */
  verb: string;
  /** "forwarded", "printed". */
  done: string;
  /** What else the user can run to get what was passed over. */
  instead: (lastId: string) => string;
}

/**
 * What to do with more than --max-backlog captures waiting, at start or on a reconnect: forward
 * (or print) them only when asked for (--backlog all or newest, or a yes on a terminal); otherwise
 * go live and one line on stderr says how to get what was passed over. Returns where to start.
 */
export async function chooseBacklog(client: HookcapClient, slug: string, rule: BacklogRule, words: BacklogWords, errStyle: Style, b: BacklogFound): Promise<Start> {
  const { lastId, waiting } = b;
  const meanwhile = b.stopped ? `while ${words.command} was stopped` : `while ${words.command} was disconnected`;
  // Live means after the newest capture now, so what arrives while the question waits is live.
  const newest = await client.newestId(slug);
  let choice: Backlog = rule.backlog;
  const asking = choice === 'ask' && canAsk();
  if (asking) {
    const offerNewest = rule.maxBacklog <= MAX_NEWEST;
    err(`${count(waiting)} captures arrived on ${slug} ${meanwhile} (${b.context}).`);
    const answer = await ask(
      `${words.ask}? y: all ${count(waiting)}, oldest first · N: none, ${b.stopped ? 'start' : 'go on'} live` +
        (offerNewest ? ` · newest: the newest ${count(rule.maxBacklog)} [y/N/newest] ` : ' [y/N] '),
    );
    choice = answer === 'y' || answer === 'yes' ? 'all' : answer === 'newest' && offerNewest ? 'newest' : 'skip';
  } else if (choice === 'ask') {
    // No one to ask (CI, a pipe, stderr to a file): never block; skip, and say so.
    choice = 'skip';
  }
  if (choice === 'skip' && !asking) {
    err(
      paint(
        errStyle,
        'yellow',
        `not ${words.doing} the ${count(waiting)} captures that arrived ${meanwhile} (more than --max-backlog ${rule.maxBacklog}); ${b.stopped ? 'starting' : 'going on'} live.`,
      ) + ` To ${words.verb} them: --backlog all (or newest), or ${words.instead(lastId)}`,
    );
  }
  if (choice === 'all') return { after: lastId, said: `resuming after ${lastId}: all ${count(waiting)} captures received meanwhile, then live` };
  if (choice === 'newest') {
    if (rule.maxBacklog === 0) return { after: newest, said: 'from now on' };
    // The capture just older than the newest --max-backlog: the stream starts after it.
    const [before] = await client.search({ slug, order: 'desc', limit: 1, offset: rule.maxBacklog });
    const after = before && before.id > lastId ? before.id : lastId;
    return { after, said: `the newest ${count(rule.maxBacklog)} of the ${count(waiting)} captures received meanwhile, then live` };
  }
  return { after: newest, said: `from now on (${count(waiting)} captures after ${lastId} not ${words.done})` };
}

/**
 * The same rule on a reconnect: a laptop that slept with listen (or tail) running finds its stream
 * ended and, on waking, more than --max-backlog captures after the last one it received. Returns
 * the capture id to resume after instead, or nothing to resume where the stream left off.
 */
export function onResume(client: HookcapClient, slug: string, rule: BacklogRule, words: BacklogWords, errStyle: Style): StreamOptions['onResume'] {
  if (rule.backlog === 'all') return undefined;
  return async ({ after, waiting }) => {
    const n = await waiting();
    if (n <= rule.maxBacklog) return;
    // The client notices a lost connection only once the laptop wakes: the last capture's own time
    // says how long ago it was.
    const at = idTime(after);
    const context = at > 0 ? `the last one received came at ${when(at)}` : 'none had come before';
    const start = await chooseBacklog(client, slug, rule, words, errStyle, { lastId: after, waiting: n, stopped: false, context });
    err(paint(errStyle, 'dim', `reconnecting: ${start.said}`));
    return start.after;
  };
}
