/**
 * An endpoint's configuration (mock response, notification URL, signature verification) and
 * send-test. Saving updates the shared endpoint list, so every view shows the new settings.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SigningConfig } from '../../../src/engine/signing/types';
import { api, unwrap } from './client';
import { keys, type Endpoint } from './queries';

export type { SigningConfig };

export interface MockResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export interface EndpointPatch {
  mockResponse?: MockResponse | null;
  notificationUrl?: string | null;
  signing?: SigningConfig | null;
}

export function useUpdateEndpoint(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (patch: EndpointPatch) => unwrap(api.endpoints({ slug }).patch(patch)),
    onSuccess: (updated) => qc.setQueryData<Endpoint[]>(keys.endpoints, (list) => (list ?? []).map((e) => (e.slug === updated.slug ? updated : e))),
  });
}

export interface SendTestInput {
  method: string;
  headers: Record<string, string>;
  body: string;
}

export function useSendTest(slug: string) {
  return useMutation({
    mutationFn: (input: SendTestInput) => unwrap(api['send-test'].post({ slug, ...input })),
  });
}
