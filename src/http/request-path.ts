/**
 * The path of `request.url`. Bun gives the bare path ("/api/x?y") instead of an absolute URL when
 * the Host header is empty or unusable (src/http/receiver.ts), where `new URL` would throw.
 */
export function pathnameOf(url: string): string {
  const start = url.charCodeAt(0) === 47 ? 0 : url.indexOf('/', url.indexOf('://') + 3);
  if (start < 0) return '/';
  const end = url.search(/[?#]/);
  return url.slice(start, end < start ? url.length : end);
}

/** Longest path a refusal quotes: enough to see a typo, not a megabyte echoed back. */
const QUOTED_PATH_MAX = 120;

/** A path as a refusal quotes it: cut at QUOTED_PATH_MAX characters. */
export function shortPath(path: string): string {
  return path.length > QUOTED_PATH_MAX ? `${path.slice(0, QUOTED_PATH_MAX)}…` : path;
}
