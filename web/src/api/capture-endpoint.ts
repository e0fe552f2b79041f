/**
 * Which endpoint a capture belongs to, for the URL and cURL shown with it. A capture names its
 * endpoint only by id: it is looked up in my endpoints and those shared with me, and while those
 * are not loaded (or do not hold it) the server says it: its HAR export of the capture carries the
 * capture's full URL, built from the real endpoint. Never a made-up URL.
 */
import { useQuery } from '@tanstack/react-query';
import type { Capture } from '../../../src/model/capture';
import { captureQuery } from '../lib/url';
import { ApiError, errorText } from './client';
import { useEndpoints } from './queries';
import { useSharedEndpoints } from './teams';

export interface CaptureEndpoint {
  id: string;
  slug: string;
  url: string;
  /** Known when the endpoint is in a loaded list. */
  name?: string;
}

async function endpointFromServer(c: Capture): Promise<CaptureEndpoint> {
  const res = await fetch(`/api/requests/${encodeURIComponent(c.id)}/export?format=har`, { credentials: 'same-origin' });
  if (!res.ok) {
    let message = `The server answered ${res.status}.`;
    try {
      const body = (await res.json()) as { error?: unknown; code?: unknown };
      if (typeof body.error === 'string') message = body.error;
    } catch (e) {
      message = errorText(e);
    }
    throw new ApiError(res.status, 'error', message);
  }
  const har = (await res.json()) as { log?: { entries?: { request?: { url?: unknown } }[] } };
  const url = har.log?.entries?.[0]?.request?.url;
  if (typeof url !== 'string') throw new Error('The server did not say where this request was sent.');
  // The export's URL is the endpoint's URL, then the captured path and query.
  const suffix = `${c.path === '/' ? '' : c.path}${captureQuery(c)}`;
  const base = suffix && url.endsWith(suffix) ? url.slice(0, url.length - suffix.length) : /^(.*?\/w\/[^/?#]+)/.exec(url)?.[1];
  const slug = base ? /\/w\/([^/?#]+)$/.exec(base)?.[1] : undefined;
  if (!base || !slug) throw new Error('The server did not say where this request was sent.');
  return { id: c.endpointId, slug: decodeURIComponent(slug), url: base };
}

/** The capture's endpoint, or null while it is being found out (`error` when it cannot be). */
export function useCaptureEndpoint(capture: Capture | undefined): { endpoint: CaptureEndpoint | null; error: unknown } {
  const own = useEndpoints();
  const mine = capture ? own.data?.find((e) => e.id === capture.endpointId) : undefined;
  const shared = useSharedEndpoints(capture !== undefined && own.isSuccess && !mine);
  const theirs = capture && !mine ? shared.data?.find((e) => e.id === capture.endpointId) : undefined;
  const listed = mine ?? theirs;
  const lookup = useQuery({
    queryKey: ['capture-endpoint', capture?.id ?? ''],
    queryFn: () => endpointFromServer(capture as Capture),
    enabled: capture !== undefined && !listed,
    staleTime: Infinity,
  });
  if (listed) return { endpoint: { id: listed.id, slug: listed.slug, url: listed.url, name: listed.name }, error: null };
  return { endpoint: lookup.data ?? null, error: lookup.error };
}
