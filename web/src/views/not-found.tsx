import { Link } from 'wouter';
import { paths } from '../paths';
import { useTitle } from '../ui/title';

/** Any dashboard address that names no view. */
export function NotFound() {
  useTitle('Not found');
  return (
    <section className="page" aria-labelledby="not-found-title">
      <h1 id="not-found-title">Page not found</h1>
      <p>
        This address is not part of the dashboard. <Link href={paths.home}>Go to your endpoints</Link>.
      </p>
    </section>
  );
}
