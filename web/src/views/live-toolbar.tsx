/** The bar above the live list: the stream's status, how many requests are listed, Export and Pause/Resume. */
import { useRef, type ReactNode } from 'react';
import { plural } from '../lib/format';
import type { LiveState } from '../live/store';
import { useFocusWhenGone } from '../ui/focus';

const STATUS_TEXT: Record<LiveState['status'], string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  ended: 'Stream ended',
};

export function Toolbar({ state, shown, onPause, onResume, children }: { state: LiveState; shown: number; onPause: () => void; onResume: () => void; children?: ReactNode }) {
  const toggle = useRef<HTMLButtonElement>(null);
  // "N new requests" merged them and went away: the focus goes to Pause (which Resume became).
  useFocusWhenGone(state.paused && state.held > 0, () => toggle.current);
  return (
    <div className="list-toolbar">
      <span className={`live-status s-${state.status}`} role="status" aria-label="Stream status">
        <span className="dot" aria-hidden="true" />
        {STATUS_TEXT[state.status]}
      </span>
      {/* No count before the first page is in (the server was down when the page opened): "0 requests" said the endpoint was empty. */}
      <span className="list-count" aria-live="off">
        {state.loading ? '' : `${shown === state.items.length ? '' : `${shown.toLocaleString('en')} of `}${plural(state.items.length, 'request')}${state.hasMore ? ' loaded' : ''}`}
      </span>
      <span className="toolbar-end">
        {children}
        {state.paused && state.held > 0 ? (
          <button type="button" className="small primary" onClick={onResume}>
            {plural(state.held, 'new request')}
          </button>
        ) : null}
        {state.paused ? (
          <button type="button" className="small" ref={toggle} onClick={onResume}>
            Resume
          </button>
        ) : (
          <button type="button" className="small" ref={toggle} onClick={onPause} disabled={state.status === 'ended'}>
            Pause
          </button>
        )}
      </span>
    </div>
  );
}
