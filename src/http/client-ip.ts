/**
 * The one reader of a request's client address: the first X-Forwarded-For entry when
 * TRUST_PROXY is on (a proxy in front sets it), else the peer of the connection.
 */

/** The part of Bun's Server that knows a request's peer. */
export interface PeerSource {
  requestIP(request: Request): { address: string } | null;
}

/** The client's address, or '' when neither the proxy header (if trusted) nor the peer gives one. */
export function clientAddress(request: Request, server: PeerSource | null, trustProxy: boolean): string {
  const forwarded = trustProxy ? request.headers.get('x-forwarded-for')?.split(',')[0]?.trim() : undefined;
  return forwarded || server?.requestIP(request)?.address || '';
}

/**
 * The address a request is counted for (rate limits, failed authentication); requests with none
 * share the bucket 'unknown'. Every counter keys on this one, so they agree on who an address is.
 */
export function clientIp(request: Request, server: PeerSource | null, trustProxy: boolean): string {
  return clientAddress(request, server, trustProxy) || 'unknown';
}
