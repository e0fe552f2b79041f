/** Home: the account's endpoints, each with its receiver URL; one click creates the first. */
import { useState, type CSSProperties } from 'react';
import { Link, useLocation } from 'wouter';
import { useCreateEndpoint, useEndpointActivity, useEndpoints, type Endpoint } from '../api/queries';
import { paths } from '../paths';
import { endpointMatches } from '../lib/filter';
import { plural } from '../lib/format';
import { CopyButton } from '../ui/copy-button';
import { ErrorMessage } from '../ui/error';
import { leaveOnEscape } from '../ui/search-field';
import { RelativeTime } from '../ui/time';
import { useTitle } from '../ui/title';
import { SharedEndpointsSection } from './teams/shared-endpoints';
import { BusyButton } from '../ui/busy-button';

/**
 * The endpoint just made with New endpoint: its page takes the focus on its title (the button
 * that had it is gone with the home page), so the next Tab reaches its Copy URL.
 */
let justCreated: string | null = null;

/** True once, for the page of the endpoint New endpoint has just made. */
export function takeJustCreated(slug: string): boolean {
  const yes = justCreated === slug;
  if (yes) justCreated = null;
  return yes;
}

export function NewEndpointButton({ className = 'primary' }: { className?: string }) {
  const create = useCreateEndpoint();
  const [, navigate] = useLocation();
  const onCreated = (e: Endpoint) => {
    justCreated = e.slug;
    navigate(paths.endpoint(e.slug));
  };
  return (
    <>
      <BusyButton type="button" className={className} busy={create.isPending} onClick={() => create.mutate('', { onSuccess: onCreated })}>
        New endpoint
      </BusyButton>
      {create.error ? <ErrorMessage error={create.error} /> : null}
    </>
  );
}

/** The receiver URL as text, and a button to copy it (named for its endpoint where several are shown). */
export function ReceiverUrl({ url, of }: { url: string; of?: string }) {
  // Where the URL is cut on a phone (the endpoint's header), the slug, its last segment, is what
  // tells endpoints apart: the cut never reaches it. styles/app.css sizes the box from these
  // lengths (in `ch` of its monospace font), not from the text, whose whole width would not fit.
  const chars = { '--url-chars': url.length, '--slug-chars': url.length - url.lastIndexOf('/') - 1 } as CSSProperties;
  return (
    <span className="receiver-url">
      <code className="url-text" title={url} style={chars}>
        {/* An isolate: where the header cuts the URL from its start (styles/app.css), it is still read left to right. */}
        <span dir="ltr">{url}</span>
      </code>
      <CopyButton text={url} label="Copy URL" ariaLabel={of ? `Copy URL of ${of}` : undefined} done="Copied the receiver URL" className="small" />
    </span>
  );
}

/** An endpoint card's links: its requests and its settings (named for the endpoint). */
export function EndpointCardLinks({ slug, name }: { slug: string; name: string }) {
  return (
    <div className="endpoint-card-links">
      <Link href={paths.endpoint(slug)} aria-label={`Requests of ${name}`}>
        Requests
      </Link>
      <Link href={paths.endpointSettings(slug)} aria-label={`Settings of ${name}`}>
        Settings
      </Link>
    </div>
  );
}

/**
 * "42 requests · latest 3m ago" (the exact time on hover), or "No requests yet": read for every
 * endpoint in one call beside the list (useEndpointActivity), so the row is there at once and this
 * line fills in. Not live. Nothing while it is read, if the read failed, or for an endpoint past
 * the call's bound (docs/api.md); the line keeps its height meanwhile, so rows do not move.
 */
export function EndpointActivityLine({ slug }: { slug: string }) {
  const activity = useEndpointActivity();
  const a = activity.data?.get(slug);
  return (
    <p className="muted card-line endpoint-activity">
      {!a ? (
        '\u00a0'
      ) : a.count === 0 || a.lastReceivedAt === null ? (
        'No requests yet'
      ) : (
        <>
          {plural(a.count, 'request')} · latest <RelativeTime ms={a.lastReceivedAt} />
        </>
      )}
    </p>
  );
}

function EndpointCard({ endpoint }: { endpoint: Endpoint }) {
  return (
    <li className="endpoint-card">
      <div className="endpoint-card-head">
        <Link href={paths.endpoint(endpoint.slug)} className="endpoint-name">
          {endpoint.name}
        </Link>
        <span className="muted">
          created <RelativeTime ms={endpoint.createdAt} />
        </span>
      </div>
      <EndpointActivityLine slug={endpoint.slug} />
      <ReceiverUrl url={endpoint.url} of={endpoint.name} />
      <EndpointCardLinks slug={endpoint.slug} name={endpoint.name} />
    </li>
  );
}

/** With this many endpoints of your own, the page gets its filter. */
const FILTER_FROM = 6;

function EndpointFilter({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <div className="endpoint-filter">
      <input
        type="search"
        aria-label="Filter endpoints"
        placeholder="Filter by name or slug"
        value={value}
        spellCheck={false}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={leaveOnEscape}
      />
    </div>
  );
}

export function EndpointsHome() {
  const endpoints = useEndpoints();
  // Asked for together with the list, not after it; the rows do not wait for it (EndpointActivityLine).
  useEndpointActivity();
  const [filter, setFilter] = useState('');
  useTitle('Endpoints');
  if (endpoints.isPending) return <p className="page muted">Loading endpoints…</p>;
  if (endpoints.error) return <div className="page"><ErrorMessage error={endpoints.error} /></div>;
  const list = endpoints.data;
  const shown = filter.trim() ? list.filter((e) => endpointMatches(e, filter)) : list;
  if (list.length === 0) {
    return (
      <section className="page empty-state" aria-labelledby="endpoints-title">
        <h1 id="endpoints-title">Endpoints</h1>
        <p>An endpoint is a URL that records every HTTP request sent to it. Point a webhook at it and watch requests arrive here, live.</p>
        <NewEndpointButton />
        <SharedEndpointsSection />
      </section>
    );
  }
  return (
    <section className="page" aria-labelledby="endpoints-title">
      <div className="page-head">
        <h1 id="endpoints-title">Endpoints</h1>
        <NewEndpointButton />
      </div>
      {list.length >= FILTER_FROM ? <EndpointFilter value={filter} onChange={setFilter} /> : null}
      {shown.length === 0 ? (
        <p className="muted">No endpoint matches “{filter}”.</p>
      ) : (
        <ul className="endpoint-list" aria-label="Your endpoints">
          {shown.map((e) => (
            <EndpointCard key={e.slug} endpoint={e} />
          ))}
        </ul>
      )}
      <SharedEndpointsSection filter={filter} />
    </section>
  );
}
