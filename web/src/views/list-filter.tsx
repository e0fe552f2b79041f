import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import type { LiveList, LiveState } from '../live/store';
import { paths } from '../paths';
import { focusRowWhenDrawn } from '../ui/request-list';
import { leaveOnEscape } from '../ui/search-field';
import { filtersQuery } from './search';

/**
 * The live list's filter (lib/filter.ts). Enter goes to the first matching row, so the keyboard
 * carries on into the list; Escape leaves the box with the filter kept (ui/search-field.ts).
 */
export function ListFilter({ value, onChange, firstId }: { value: string; onChange: (value: string) => void; firstId: string | undefined }) {
  return (
    <div className="list-filter">
      <input
        type="search"
        aria-label="Filter requests"
        placeholder="Filter: path, method:post, event:…, -word"
        value={value}
        spellCheck={false}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          const input = e.currentTarget;
          if (e.key === 'Enter' && firstId) {
            e.preventDefault();
            focusRowWhenDrawn(document, firstId, () => document.activeElement === input);
          } else leaveOnEscape(e);
        }}
      />
    </div>
  );
}

/** Fewer matches than this leave most of the list's box empty: older pages are read for more. */
const FILL = 25;
/** How many captures a filter reads by itself (10 pages), from where it started; **Look further back** allows as many again. */
const AUTO_REACH = 1000;

export interface FilterReach {
  /** Older pages are being read for the filter. */
  looking: boolean;
  /** The filter read as far as it does by itself, and older pages remain: reads as far again. */
  further: (() => void) | null;
}

/**
 * The filter reads what the page has loaded, and older pages load as the list is scrolled to its
 * end. A filter with few or no matches draws too short a list (or none) to be scrolled, so older
 * pages would never load and a match among them never show: while the matches do not fill the
 * view, older pages are read by themselves, up to AUTO_REACH captures past what was loaded when
 * the filter was typed.
 */
export function useFilterReach(filter: string, matches: number, state: LiveState, store: LiveList | null): FilterReach {
  const [reach, setReach] = useState<number | null>(null);
  // From where the filter started (typed into an empty box, or the page opened with one), not from
  // each keystroke: "g", "gi", "git" would each read another thousand.
  if (filter === '' && reach !== null) setReach(null);
  if (filter !== '' && reach === null) setReach(state.items.length + AUTO_REACH);
  const wants = filter !== '' && matches < FILL && state.hasMore && !state.loading && state.status !== 'ended';
  const within = state.items.length < (reach ?? state.items.length + AUTO_REACH);
  // A failed page stops it (its error is shown); a capture that arrives meanwhile does not restart it.
  const go = wants && within && state.error === null;
  useEffect(() => {
    if (go && !state.loadingOlder) void store?.loadOlder();
  }, [go, state.loadingOlder, store]);
  return {
    looking: go,
    further: wants && !within && !state.loadingOlder ? () => setReach(state.items.length + AUTO_REACH) : null,
  };
}

/**
 * Under the filter: whether older pages are being read for it, or that nothing loaded matches,
 * with **Look further back** while older pages remain and a link to the search page, which asks
 * the server about every capture (and reads bodies and headers, which this filter does not).
 * The sentence is a status region, so a screen reader hears it as it changes.
 */
export function FilterStatus({ filter, matches, loaded, state, reach, slug }: { filter: string; matches: number; loaded: number; state: LiveState; reach: FilterReach; slug: string }) {
  const none = filter !== '' && matches === 0 && !reach.looking;
  const text = filter === '' ? '' : reach.looking ? 'Looking through older requests…' : none ? `No request matches “${filter}”${state.hasMore ? ` among the ${loaded.toLocaleString('en')} loaded` : ''}.` : '';
  return (
    <div className={text || reach.further ? 'filter-status' : 'filter-status empty'}>
      <p role="status" className="muted">
        {text}
      </p>
      {reach.further || none ? (
        <p className="filter-actions">
          {reach.further ? (
            <button type="button" className="small" onClick={reach.further}>
              Look further back
            </button>
          ) : null}
          {none ? <Link href={`${paths.search}${filtersQuery({ q: filter, method: '', from: '', slug, header: '' })}`}>Search all of this endpoint's requests for “{filter}”</Link> : null}
        </p>
      ) : null}
    </div>
  );
}
