/** One polite live region for short confirmations ("Copied cURL"), so screen readers hear them too. */
import { useSyncExternalStore } from 'react';

let message = '';
let seq = 0;
const listeners = new Set<() => void>();
let clearTimer: ReturnType<typeof setTimeout> | null = null;

export function announce(text: string): void {
  message = text;
  seq++;
  for (const l of listeners) l();
  if (clearTimer) clearTimeout(clearTimer);
  clearTimer = setTimeout(() => {
    message = '';
    for (const l of listeners) l();
  }, 2500);
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

export function Toasts() {
  const text = useSyncExternalStore(subscribe, () => message);
  return (
    <div className="toast" role="status" aria-live="polite" data-seq={seq}>
      {text}
    </div>
  );
}
