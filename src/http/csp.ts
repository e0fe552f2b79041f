/**
 * Where our pages may load scripts (and styles) from: the paths that serve our own files, never the
 * whole origin. In the default layout the receiver (`/w/<slug>`) shares the origin, and a mock
 * response is whatever an endpoint's owner (a stranger) chose, `text/javascript` included, so
 * `script-src 'self'` would let an HTML injection run `<script src="/w/<slug>">` with the visitor's
 * session (docs/security.md, "Where our pages take scripts from").
 *
 * A page's own files are fetched from the origin the browser loaded it from. That is BASE_URL's
 * origin behind a proxy that rewrites the Host header, and the request's own Host when the service
 * is opened by another name (`127.0.0.1` for `localhost`, a LAN address): both are listed. The
 * request's host is written without a scheme, so it matches the page's own scheme (https behind a
 * TLS proxy). A page opened by a host CSP cannot name (an IPv6 literal such as `[::1]`) gets
 * `'self'` instead, or it would not run at all.
 */

/** A Host header CSP can name: a DNS name or IPv4 address, with an optional port. */
const NAMEABLE_HOST = /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?::\d{1,5})?$/i;

export interface OwnSources {
  /**
   * The host-sources for `path` (which must end in `/`), e.g. `https://app.example.com/assets/`,
   * for a page answering `request`.
   *
   * @example `script-src ${own.sources(request, '/assets/')}`
   */
  sources(request: Request, path: string): string;
}

/** BASE_URL is parsed once; per request only the Host header is checked. */
export function ownSources(baseUrl: string): OwnSources {
  const base = new URL(baseUrl);
  // BASE_URL's path, if any, is not used: every page and file is served from the root.
  const baseOrigin = NAMEABLE_HOST.test(base.host) ? base.origin : null;
  const baseHost = base.host.toLowerCase();
  return {
    sources(request, path) {
      const host = request.headers.get('host')?.toLowerCase() ?? '';
      const other = host !== '' && host !== baseHost;
      // A page opened by a name CSP cannot write would not get its own files: 'self' instead.
      if ((other && !NAMEABLE_HOST.test(host)) || (!other && !baseOrigin)) return "'self'";
      const out = baseOrigin ? [`${baseOrigin}${path}`] : [];
      if (other) out.push(`${host}${path}`);
      return out.join(' ');
    },
  };
}
