/** The signed-in account: its API keys, its usage this month, and deleting it. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys, switchAccount } from './queries';

export const accountKeys = {
  apiKeys: ['api-keys'] as const,
  usage: ['usage'] as const,
};

export function useApiKeys() {
  return useQuery({ queryKey: accountKeys.apiKeys, queryFn: () => unwrap(api['api-keys'].get()) });
}

export type ApiKey = NonNullable<ReturnType<typeof useApiKeys>['data']>[number];

/** The answer holds the raw key, shown once: it stays in the mutation, never in the query cache. */
export function useCreateApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => unwrap(api['api-keys'].post(name.trim() ? { name: name.trim() } : {})),
    onSuccess: ({ key: _raw, ...listed }) => qc.setQueryData<ApiKey[]>(accountKeys.apiKeys, (list) => [...(list ?? []), listed]),
  });
}

export function useDeleteApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => unwrap(api['api-keys'].delete(undefined, { query: { id } })),
    onSuccess: (_out, id) => qc.setQueryData<ApiKey[]>(accountKeys.apiKeys, (list) => (list ?? []).filter((k) => k.id !== id)),
  });
}

export function useUsage() {
  return useQuery({ queryKey: accountKeys.usage, queryFn: () => unwrap(api.usage.get()), refetchInterval: 30_000 });
}

/** Deleted: the sign-in screen that follows says so (else it looks like a sign-out, or a failure). */
export function useDeleteAccount() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.account.delete()),
    onSuccess: () => {
      const email = qc.getQueryData<{ email: string } | null>(keys.me)?.email;
      switchAccount(qc, null);
      qc.setQueryData(keys.signInNote, `Your account ${email ? `${email} ` : ''}is deleted, with its endpoints, captured requests and API keys.`);
    },
  });
}

/** Sets a new password with the current one; every other browser session of the account ends. */
export function useChangePassword() {
  return useMutation({
    mutationFn: (body: { currentPassword: string; newPassword: string }) => unwrap(api.account.password.post(body)),
  });
}

/** Mails a new address-verification link (the older one stops working). */
export function useResendVerification() {
  return useMutation({ mutationFn: () => unwrap(api.account['verify-email'].post()) });
}
