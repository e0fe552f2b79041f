/**
 * Which endpoint a capture belongs to, for the URL and cURL shown with it. A capture in a list
 * names its endpoint only by id: it is looked up in my endpoints and those shared with me. The
 * request-by-id answer (`GET /api/requests/{id}`) also carries `endpointSlug` and `endpointUrl`,
 * so a deep link names its endpoint without waiting for those lists; a capture found in neither
 * is asked for by id (one small JSON record, cached with the request). Never a made-up URL.
 */
import type { Capture } from '../../../src/model/capture';
import { useEndpoints, useRequest } from './queries';
import { useSharedEndpoints } from './teams';

export interface CaptureEndpoint {
  id: string;
  slug: string;
  url: string;
  /** Known when the endpoint is in a loaded list. */
  name?: string;
}

/** What `GET /api/requests/{id}` adds to the record. */
type WithEndpoint = Capture & { endpointSlug?: string; endpointUrl?: string };

/** The capture's endpoint, or null while it is being found out (`error` when it cannot be). */
export function useCaptureEndpoint(capture: WithEndpoint | undefined): { endpoint: CaptureEndpoint | null; error: unknown } {
  const own = useEndpoints();
  const mine = capture ? own.data?.find((e) => e.id === capture.endpointId) : undefined;
  const shared = useSharedEndpoints(capture !== undefined && own.isSuccess && !mine);
  const theirs = capture && !mine ? shared.data?.find((e) => e.id === capture.endpointId) : undefined;
  const listed = mine ?? theirs;
  const told = capture?.endpointSlug !== undefined && capture.endpointUrl !== undefined;
  // Neither listed nor told (a capture from a list, its endpoint not in mine or the shared ones yet).
  const byId = useRequest(capture && !listed && !told ? capture.id : null);
  if (listed) return { endpoint: { id: listed.id, slug: listed.slug, url: listed.url, name: listed.name }, error: null };
  const from: WithEndpoint | undefined = told ? capture : byId.data;
  if (capture && from?.endpointSlug !== undefined && from.endpointUrl !== undefined) {
    return { endpoint: { id: capture.endpointId, slug: from.endpointSlug, url: from.endpointUrl }, error: null };
  }
  return { endpoint: null, error: byId.error };
}
