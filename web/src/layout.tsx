/** The frame around every signed-in view: product name, the Search box, navigation, log out. */
import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Link, useLocation, useRoute, useSearch } from 'wouter';
import { useSignOut } from './api/queries';
import { paths } from './paths';
import { ErrorMessage } from './ui/error';
import { focusNextPageHeading, useFocusNextPageHeading } from './ui/focus';
import { useShortcuts } from './ui/keys';
import { leaveOnEscape, searchPlaceholder } from './ui/search-field';
import { Toasts } from './ui/toast';
import { UnconfirmedBanner } from './ui/unconfirmed-banner';
import { applySearchSyntax, filtersQuery, readFilters } from './views/search';

function SearchBox({ inputRef }: { inputRef: React.RefObject<HTMLInputElement | null> }) {
  const [location, navigate] = useLocation();
  const search = useSearch();
  const onSearchPage = location === paths.search || location.startsWith(`${paths.search}/`);
  const [, endpoint] = useRoute<{ slug: string }>(/^\/endpoints\/(?<slug>[^/]+)/);
  const filters = readFilters(onSearchPage ? search : '');
  const [draft, setDraft] = useState(filters.q);
  // On the search page the box edits the query in place; elsewhere Enter starts a search (in the endpoint on screen).
  const value = onSearchPage ? filters.q : draft;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // Enter moves the live filter's `method:`/`header:` words to search's own filters (applySearchSyntax).
    if (onSearchPage) return void navigate(`${paths.search}${filtersQuery(applySearchSyntax(filters))}`, { replace: true });
    navigate(`${paths.search}${filtersQuery(applySearchSyntax({ q: draft, method: '', from: '', slug: endpoint?.slug ?? '' }))}`);
    // From here the search page's URL holds the query; left behind, the draft would come back stale
    // (what was typed before refining it there) on the next page without a search.
    setDraft('');
  };
  return (
    <form role="search" className="search-box" onSubmit={submit}>
      <input
        ref={inputRef}
        type="search"
        aria-label="Search"
        placeholder={searchPlaceholder()}
        value={value}
        onKeyDown={leaveOnEscape}
        onChange={(e) => {
          if (onSearchPage) navigate(`${paths.search}${filtersQuery({ ...filters, q: e.target.value })}`, { replace: true });
          else setDraft(e.target.value);
        }}
      />
    </form>
  );
}

function NavLink({ href, children }: { href: string; children: ReactNode }) {
  const [location] = useLocation();
  const current = href === paths.home ? location === href || location.startsWith('/endpoints') : location === href || location.startsWith(`${href}/`);
  return (
    <Link href={href} aria-current={current ? 'page' : undefined}>
      {children}
    </Link>
  );
}

export function Layout({ email, children }: { email: string; children: ReactNode }) {
  const searchRef = useRef<HTMLInputElement>(null);
  const mainRef = useRef<HTMLElement>(null);
  useShortcuts(searchRef);
  const signOut = useSignOut();
  const [location, navigate] = useLocation();
  useFocusNextPageHeading(mainRef, location);
  return (
    <div className="app">
      {/* The first Tab stop: past the top bar's ~8 stops (and an endpoint's header) to the page itself. */}
      <a
        href="#main"
        className="skip-link"
        onClick={(e) => {
          // Focused by hand: following `#main` would add it to the URL (and to the history). Focusable
          // only for this: always, a click on any blank part of the page would focus it too.
          e.preventDefault();
          const main = mainRef.current;
          if (!main) return;
          main.tabIndex = -1;
          main.addEventListener('blur', () => main.removeAttribute('tabindex'), { once: true });
          main.focus();
        }}
      >
        Skip to content
      </a>
      <header className="topbar">
        <Link href={paths.home} className="brand">
          hookcap
        </Link>
        <SearchBox inputRef={searchRef} />
        <nav aria-label="Main" className="mainnav">
          <NavLink href={paths.home}>Endpoints</NavLink>
          <NavLink href={paths.account}>Account</NavLink>
          <NavLink href={paths.teams}>Teams</NavLink>
        </nav>
        <span className="who" title={email}>
          {email}
        </span>
        <button
          type="button"
          onClick={() => {
            // The button goes with this frame, signed out or not (useSignOut): the sign-in form's heading takes the focus.
            focusNextPageHeading();
            signOut.mutate(undefined, { onSettled: () => navigate(paths.home) });
          }}
        >
          Log out
        </button>
      </header>
      {signOut.error ? <ErrorMessage error={signOut.error} /> : null}
      <UnconfirmedBanner />
      <main className="main" id="main" ref={mainRef}>
        {children}
      </main>
      <Toasts />
    </div>
  );
}
