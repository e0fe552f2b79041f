import { Link } from 'wouter';
import { paths } from '../paths';
import { focusNextPageHeading } from '../ui/focus';
import { useTitle } from '../ui/title';

/**
 * Any dashboard address that names no view; also the page the server answers with status 404 for a
 * browser's load of an address that is no route at all (src/http/route-miss.ts). Signed out, it
 * stands alone, where the sign-in form would be, and its link leads home to that form.
 */
export function NotFound({ signedOut = false }: { signedOut?: boolean }) {
  useTitle('Page not found');
  // The link goes with this view: the next page's heading takes the focus, not the page's top.
  const home = (
    <Link href={paths.home} onClick={() => focusNextPageHeading()}>
      {signedOut ? 'Go to the home page' : 'Go to your endpoints'}
    </Link>
  );
  const view = (
    <section className="page" aria-labelledby="not-found-title">
      <h1 id="not-found-title">Page not found</h1>
      <p>This address is not part of the dashboard. {home}.</p>
    </section>
  );
  return signedOut ? <main className="auth">{view}</main> : view;
}
