/**
 * From one endpoint straight to another, without the endpoint list: a disclosure button in the breadcrumb
 * with a field to narrow the names and a link per endpoint (mine, then those shared with me, read
 * when it opens). Links, not a select: a select navigates on every arrow key.
 */
import { useRef, useState } from 'react';
import { Link } from 'wouter';
import { useEndpoints } from '../api/queries';
import { useSharedEndpoints } from '../api/teams';
import { endpointMatches } from '../lib/filter';
import { paths } from '../paths';
import { useClickAway } from './click-away';

export function EndpointSwitcher({ current }: { current: string }) {
  const [open, setOpen] = useState(false);
  const [find, setFind] = useState('');
  const box = useRef<HTMLDivElement>(null);
  const mine = useEndpoints();
  const shared = useSharedEndpoints(open);
  // A click elsewhere closes it, as a menu would.
  useClickAway(box, open, () => setOpen(false));
  const all = [...(mine.data ?? []), ...(shared.data ?? []).filter((s) => !(mine.data ?? []).some((m) => m.slug === s.slug))];
  const listed = all.filter((e) => e.slug !== current && endpointMatches(e, find));
  const close = () => {
    setOpen(false);
    setFind('');
  };
  return (
    <div
      className="switcher"
      ref={box}
      onKeyDown={(e) => {
        if (e.key !== 'Escape' || !open) return;
        e.preventDefault();
        close();
        box.current?.querySelector('button')?.focus();
      }}
    >
      <button type="button" className="link-button" aria-expanded={open} aria-controls="switcher-menu" onClick={() => (open ? close() : setOpen(true))}>
        Switch endpoint
      </button>
      {open ? (
        <div className="switcher-menu" id="switcher-menu">
          <input type="search" aria-label="Find an endpoint" placeholder="Find an endpoint" value={find} autoFocus onChange={(e) => setFind(e.target.value)} onKeyDown={(e) => {
            const first = listed[0];
            if (e.key === 'Enter' && first) {
              e.preventDefault();
              box.current?.querySelector<HTMLAnchorElement>('.switcher-menu a')?.click();
            }
          }} />
          <ul aria-label="Other endpoints">
            {listed.map((e) => (
              <li key={e.slug}>
                <Link href={paths.endpoint(e.slug)} onClick={close}>
                  {e.name}
                </Link>
              </li>
            ))}
          </ul>
          {listed.length === 0 ? <p className="muted">{all.length <= 1 ? 'No other endpoint yet.' : 'No endpoint matches.'}</p> : null}
        </div>
      ) : null}
    </div>
  );
}
