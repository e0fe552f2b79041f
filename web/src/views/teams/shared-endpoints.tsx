/**
 * Endpoints other people share with me through a team: a list on the home page, and the header of
 * such an endpoint's page. Both say plainly that it is shared and read-only (members read its
 * captures; only its owner changes or deletes it).
 */
import { Link } from 'wouter';
import { useSharedEndpoints, type SharedEndpoint } from '../../api/teams';
import { paths } from '../../paths';
import { ErrorMessage } from '../../ui/error';
import { endpointMatches } from '../../lib/filter';
import { EndpointActivityLine, EndpointCardLinks, ReceiverUrl } from '../endpoints';

function SharedBadges() {
  return (
    <span className="badges">
      <span className="badge shared">shared</span>
      <span className="badge">read-only</span>
    </span>
  );
}

function via(e: SharedEndpoint): string {
  return `Shared by ${e.ownerEmail} through ${e.teams.map((t) => t.name).join(', ')}`;
}

function Paused() {
  return <p className="notice small-notice">Paused: the team's Teams subscription is not active, so its shared endpoints cannot be read until the team's owner renews it.</p>;
}

/**
 * The home page's "Shared with you" list, narrowed by the page's filter; nothing at all when
 * nobody shares an endpoint with me (or none matches). Read again when the tab comes back into
 * view (at most every SHARED_ON_RETURN_MS, api/teams.ts): the list shown stays while it is read, and a failed read shows its
 * error above the list it had rather than in its place.
 */
export function SharedEndpointsSection({ filter = '' }: { filter?: string }) {
  const shared = useSharedEndpoints(true, true);
  const error = shared.error ? <ErrorMessage error={shared.error} /> : null;
  const list = (shared.data ?? []).filter((e) => !filter.trim() || endpointMatches(e, filter));
  if (list.length === 0) return error;
  return (
    <section className="shared-endpoints" aria-labelledby="shared-title">
      <h2 id="shared-title">Shared with you</h2>
      {error}
      <ul className="endpoint-list" aria-label="Shared with you">
        {list.map((e) => (
          <li key={e.slug} className="endpoint-card">
            <div className="endpoint-card-head">
              <Link href={paths.endpoint(e.slug)} className="endpoint-name">
                {e.name}
              </Link>
              <SharedBadges />
            </div>
            <p className="muted card-line">{via(e)}</p>
            {/* A paused share is not readable: the activity call leaves it out, so its line stays empty. */}
            {e.readable ? <EndpointActivityLine slug={e.slug} /> : null}
            <ReceiverUrl url={e.url} of={e.name} />
            {e.readable ? (
              <EndpointCardLinks slug={e.slug} name={e.name} />
            ) : (
              <Paused />
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The top of a shared endpoint's own page: no rename, clear or delete, and why. */
export function SharedEndpointHeader({ endpoint }: { endpoint: SharedEndpoint }) {
  return (
    <header className="endpoint-head">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href={paths.home}>Endpoints</Link> <span aria-hidden="true">/</span>
      </nav>
      <h1 className="endpoint-title">{endpoint.name}</h1>
      <p className="muted card-line">
        <SharedBadges /> {via(endpoint)}. You can read its requests; its owner manages it.
      </p>
      <ReceiverUrl url={endpoint.url} />
      {endpoint.readable ? (
        <div className="endpoint-actions">
          <Link href={paths.endpointSettings(endpoint.slug)} className="button">
            Settings
          </Link>
        </div>
      ) : null}
    </header>
  );
}

/**
 * A shared endpoint whose team access is paused (the team's subscription is not active), in place
 * of its live list: one state, not "paused" beside "no longer exists" and "waiting for the first
 * request". Its owner's endpoint keeps capturing; members read it again once the team is renewed.
 */
export function PausedEndpoint({ endpoint }: { endpoint: SharedEndpoint }) {
  const teams = endpoint.teams.map((t) => t.name).join(', ');
  return (
    <section className="page paused-endpoint" aria-labelledby="paused-title">
      <h2 id="paused-title">Paused</h2>
      <p>
        The Teams subscription of {teams} is not active, so this endpoint's requests cannot be read until the team's owner renews it. The
        endpoint still captures requests; you can read them again once the subscription is active.
      </p>
      <p>
        <Link href={paths.home}>Back to your endpoints</Link>
      </p>
    </section>
  );
}
