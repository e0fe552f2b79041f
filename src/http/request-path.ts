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
