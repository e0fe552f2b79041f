/**
 * The dashboard's URLs, in one place: the client router builds links from these, and the server
 * answers index.html for exactly the prefixes in APP_PREFIXES (so /api, /w/, /docs, /healthz,
 * /.well-known and /agent are never shadowed). Imported by the server: keep it free of DOM code.
 */
export const paths = {
  home: '/',
  signIn: '/signin',
  signUp: '/signup',
  forgotPassword: '/forgot-password',
  /** The mailed password-reset link: `${BASE_URL}/reset-password#token=rst_…` (src/services/password-reset.ts). */
  resetPassword: '/reset-password',
  /** The mailed address-verification link: `${BASE_URL}/verify-email#token=evf_…` (src/services/email-verification.ts). */
  verifyEmail: '/verify-email',
  endpoint: (slug: string) => `/endpoints/${encodeURIComponent(slug)}`,
  endpointRequest: (slug: string, id: string) => `/endpoints/${encodeURIComponent(slug)}/requests/${encodeURIComponent(id)}`,
  endpointSettings: (slug: string) => `/endpoints/${encodeURIComponent(slug)}/settings`,
  search: '/search',
  searchRequest: (id: string) => `/search/requests/${encodeURIComponent(id)}`,
  account: '/account',
  teams: '/teams',
  team: (id: string) => `/teams/${encodeURIComponent(id)}`,
} as const;

/**
 * A dashboard path worth returning to after signing in or up, or null: same-origin (one leading
 * slash, not `//` or `/\`), and not one of the sign-in, sign-up or password pages themselves.
 */
export function returnPath(p: unknown): string | null {
  if (typeof p !== 'string' || !/^\/(?![/\\])/.test(p)) return null;
  const auth: string[] = [paths.signIn, paths.signUp, paths.forgotPassword, paths.resetPassword];
  return p === paths.home || auth.includes(p) ? null : p;
}

/** Top-level path segments that belong to the dashboard (the server answers index.html for `/`, `/<prefix>` and `/<prefix>/*`). */
export const APP_PREFIXES = ['endpoints', 'search', 'account', 'teams', 'signin', 'signup', 'forgot-password', 'reset-password', 'verify-email'] as const;

/** Whether the server answers `path` with the app (`/`, `/<prefix>`, `/<prefix>/…`); any other is its 404 page. */
export function isAppPath(path: string): boolean {
  if (path === '/') return true;
  const first = path.split('/')[1] ?? '';
  return (APP_PREFIXES as readonly string[]).includes(first);
}
