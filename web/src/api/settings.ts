/**
 * An endpoint's configuration (mock response, notification URL and its signing secret, signature verification) and
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

/**
 * The notification secret (docs/notifications.md "Signatures"): made or replaced, answered once.
 * The answer stays in the mutation (shown until dismissed), never in the query cache; the endpoint
 * list gets only `notificationSigning: {createdAt}`, as reads answer it.
 */
export function useRotateNotificationSecret(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.endpoints({ slug })['notification-secret'].post()),
    onSuccess: (made) => setNotificationSigning(qc, slug, { createdAt: made.createdAt }),
  });
}

export function useRemoveNotificationSecret(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.endpoints({ slug })['notification-secret'].delete()),
    onSuccess: () => setNotificationSigning(qc, slug, null),
  });
}

function setNotificationSigning(qc: ReturnType<typeof useQueryClient>, slug: string, signing: Endpoint['notificationSigning']): void {
  qc.setQueryData<Endpoint[]>(keys.endpoints, (list) => (list ?? []).map((e) => (e.slug === slug ? { ...e, notificationSigning: signing } : e)));
}
