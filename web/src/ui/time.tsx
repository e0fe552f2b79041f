import { useSyncExternalStore } from 'react';
import { exactTime, relativeTime, utcTimeIfLocalDiffers } from '../lib/format';

/** One shared clock for every relative time on the page, ticking every 10 s. */
let now = Date.now();
const listeners = new Set<() => void>();
let ticker: ReturnType<typeof setInterval> | null = null;

function subscribe(l: () => void) {
  listeners.add(l);
  if (!ticker) {
    now = Date.now();
    ticker = setInterval(() => {
      now = Date.now();
      for (const x of listeners) x();
    }, 10_000);
  }
  return () => {
    listeners.delete(l);
    if (listeners.size === 0 && ticker) {
      clearInterval(ticker);
      ticker = null;
    }
  };
}

export function useNow(): number {
  return useSyncExternalStore(subscribe, () => now);
}

/** "12s ago", with the exact time on hover and for assistive tech. */
export function RelativeTime({ ms }: { ms: number }) {
  // The clock ticks every 10 s; something newer than its last tick is "just now", not "in 3 s".
  const now = Math.max(useNow(), ms);
  return (
    <time dateTime={new Date(ms).toISOString()} title={[exactTime(ms), utcTimeIfLocalDiffers(ms)].filter(Boolean).join('\n')}>
      {relativeTime(ms, now)}
    </time>
  );
}

/** "in 6 days": a time to come, the exact time on hover and for assistive tech; once past, "just now". */
export function TimeUntil({ ms }: { ms: number }) {
  const now = useNow();
  return (
    <time dateTime={new Date(ms).toISOString()} title={exactTime(ms)}>
      {relativeTime(ms, Math.min(now, ms))}
    </time>
  );
}

/**
 * "expires in 2h" for an endpoint made with `expiresIn`. A time to come, unlike RelativeTime's;
 * past it the endpoint is gone (404).
 */
export function ExpiresAt({ ms }: { ms: number }) {
  return (
    <p className="muted endpoint-expiry">
      expires <TimeUntil ms={ms} />
    </p>
  );
}
