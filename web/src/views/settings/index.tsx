/**
 * An endpoint's settings page (/endpoints/<slug>/settings), under the endpoint's header. Each part
 * saves on its own. An endpoint shared with me through a team is read-only: its owner alone sees
 * and changes its configuration (the API answers 404 to anyone else), so the page says so.
 */
import { Link } from 'wouter';
import { useEndpoints } from '../../api/queries';
import { useSharedEndpoints, type SharedEndpoint } from '../../api/teams';
import { paths } from '../../paths';
import { ErrorMessage } from '../../ui/error';
import { MockResponseForm } from './mock-response';
import { NotificationForm } from './notification';
import { SendTestForm } from './send-test';
import { SigningForm } from './signing';

function ReadOnlySettings({ endpoint }: { endpoint: SharedEndpoint }) {
  return (
    <section className="settings-section" aria-labelledby="readonly-title">
      <h2 id="readonly-title">Shared with you: read-only</h2>
      <p>
        <strong>{endpoint.ownerEmail}</strong> shares this endpoint with you through {endpoint.teams.map((t) => t.name).join(', ')}. You can watch and search its requests; only its owner sees
        and changes its mock response, notifications and signature verification, and sends tests to it.
      </p>
      <p>
        <Link href={paths.endpoint(endpoint.slug)}>Back to its requests</Link>
      </p>
    </section>
  );
}

export function EndpointSettings({ slug }: { slug: string }) {
  const endpoints = useEndpoints();
  const own = endpoints.data?.find((e) => e.slug === slug);
  const shared = useSharedEndpoints(endpoints.isSuccess && !own);
  const theirs = shared.data?.find((e) => e.slug === slug);

  let content;
  if (own) {
    content = (
      <>
        <MockResponseForm key={`mock-${own.slug}`} endpoint={own} />
        <NotificationForm key={`notify-${own.slug}`} endpoint={own} />
        <SigningForm key={`signing-${own.slug}`} endpoint={own} />
        <SendTestForm key={`test-${own.slug}`} endpoint={own} />
      </>
    );
  } else if (theirs) {
    content = <ReadOnlySettings endpoint={theirs} />;
  } else if (endpoints.error ?? shared.error) {
    content = <ErrorMessage error={endpoints.error ?? shared.error} />;
  } else if (endpoints.isPending || shared.isPending) {
    content = <p className="muted">Loading settings…</p>;
  } else {
    content = <ErrorMessage error={new Error('This endpoint does not exist, or you cannot see it.')} />;
  }

  return (
    <div className="settings-page">
      <div className="settings-body">
        <Link href={paths.endpoint(slug)} className="settings-back">
          ← Requests
        </Link>
        {content}
      </div>
    </div>
  );
}
