/**
 * From one endpoint straight to another, without the endpoint list: a disclosure button in the breadcrumb
 * with a field to narrow the names and a link per endpoint (mine, then those shared with me, read
 * when it opens). Links, not a select: a select navigates on every arrow key.
 */
import { useRef, useState } from 'react';
import { Link } from 'wouter';
import { useEndpoints } from '../api/queries';
import { useSharedEndpoints } from '../api/teams';
import { endpointSuffixes } from '../lib/endpoint-label';
import { endpointMatches } from '../lib/filter';
import { paths } from '../paths';
import { useDisclosure } from './disclosure';

export function EndpointSwitcher({ current }: { current: string }) {
  const menu = useDisclosure('switcher-menu');
  const mine = useEndpoints();
  const shared = useSharedEndpoints(menu.open);
  const all = [...(mine.data ?? []), ...(shared.data ?? []).filter((s) => !(mine.data ?? []).some((m) => m.slug === s.slug))];
  return (
    <div className="switcher" {...menu.boxProps}>
      <button type="button" className="link-button" {...menu.toggleProps}>
        Switch endpoint
      </button>
      {menu.open ? <SwitcherMenu all={all} current={current} onGo={menu.close} /> : null}
    </div>
  );
}

/** The open menu. Its own component so that the field's text goes with it: it opens empty, however it was closed. */
function SwitcherMenu({ all, current, onGo }: { all: { slug: string; name: string }[]; current: string; onGo: () => void }) {
  const [find, setFind] = useState('');
  const list = useRef<HTMLUListElement>(null);
  const listed = all.filter((e) => e.slug !== current && endpointMatches(e, find));
  const suffix = endpointSuffixes(all);
  return (
    <div className="switcher-menu" id="switcher-menu">
      <input type="search" aria-label="Find an endpoint" placeholder="Find an endpoint" value={find} autoFocus onChange={(e) => setFind(e.target.value)} onKeyDown={(e) => {
        if (e.key === 'Enter' && listed.length > 0) {
          e.preventDefault();
          list.current?.querySelector('a')?.click();
        }
      }} />
      <ul aria-label="Other endpoints" ref={list}>
        {listed.map((e) => (
          <li key={e.slug}>
            <Link href={paths.endpoint(e.slug)} onClick={onGo}>
              <EndpointLabel name={e.name} suffix={suffix(e)} />
            </Link>
          </li>
        ))}
      </ul>
      {listed.length === 0 ? <p className="muted">{all.length <= 1 ? 'No other endpoint yet.' : 'No endpoint matches.'}</p> : null}
    </div>
  );
}

/** A listed endpoint's name, and after it, muted, its slug when another listed endpoint has the same name (lib/endpoint-label.ts). */
export function EndpointLabel({ name, suffix }: { name: string; suffix: string }) {
  return (
    <>
      {name}
      {suffix ? <span className="muted endpoint-slug"> · {suffix}</span> : null}
    </>
  );
}
