/** How a followed stream (listen, tail) is said on stderr: where it starts, and when it opens or drops. */
import type { StreamOptions } from '../client/index';
import { captureIdFloor, idTime } from '../src/ids';
import { clock, err, paint, type Style } from './output';

/** A time as the user reads it: the clock today, ISO 8601 further back. */
export const when = (ms: number) => (Date.now() - ms < 86_400_000 ? clock(ms) : new Date(ms).toISOString());

/** `--since` in words: a time (`--since 15m` is the floor id of that ms) or a capture id. */
export function sinceSaid(since: string): string {
  const ms = idTime(since);
  // `--since 0`, the script's `"${since:-0}"` with no capture yet: the start of time, not 1970.
  if (since === captureIdFloor(0)) return 'from the oldest stored capture on';
  return since === captureIdFloor(ms) ? `starting at ${when(ms)}` : `starting after ${since}`;
}

/** The style of status lines: coloured only when stderr is a terminal too (not `2> listen.log`). */
export const stderrStyle = (style: Style): Style => ({ color: style.color && process.stderr.isTTY === true });

/** Status lines on stderr: `banner` once the stream is first open (from then on nothing is missed). */
export function streamHooks(stdoutStyle: Style, banner: string | null): Pick<StreamOptions, 'onOpen' | 'onReconnect'> {
  const style = stderrStyle(stdoutStyle);
  return {
    onOpen: ({ reconnects }) => {
      if (reconnects === 0) {
        if (banner !== null) err(banner);
      } else err(paint(style, 'dim', 'reconnected'));
    },
    onReconnect: ({ reason, delayMs }) => {
      // The server ends every stream after 30 minutes: routine, reconnected at once and quietly.
      if (delayMs > 0) err(paint(style, 'yellow', `connection lost (${reason}); reconnecting in ${(delayMs / 1000).toFixed(1)} s`));
    },
  };
}
