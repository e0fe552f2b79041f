import { useEffect, useState } from 'react';

/**
 * Tokens mailed as links (`/reset-password#token=…`, `/verify-email#token=…`) travel in the
 * fragment, which the browser never sends to a server; the page takes the token and drops it from
 * the address bar and history at once.
 */

/** The token of `#token=…`, read once; the fragment is then removed from the address bar and history. */
export function takeTokenFromFragment(): string {
  const token = new URLSearchParams(location.hash.replace(/^#/, '')).get('token') ?? '';
  if (location.hash) history.replaceState(history.state, '', location.pathname + location.search);
  return token;
}

/**
 * The fragment's token, and the next one whenever another mailed link is opened in the same tab:
 * the path is the same, so only the fragment changes and the page is not loaded again. Views key
 * their state on it, so nothing of the first link (its error, a typed password) stays.
 */
export function useFragmentToken(): string {
  const [token, setToken] = useState(takeTokenFromFragment);
  useEffect(() => {
    const onHash = () => {
      if (location.hash) setToken(takeTokenFromFragment());
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  return token;
}
