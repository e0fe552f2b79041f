/**
 * Announces that credentials of some accounts were revoked: an API key deleted or revoked, a
 * browser session ended (log-out, every session of an account), an account deleted. Requests
 * resolve their credential in Postgres on every call, so they need nothing; this is for state
 * held open on a node — a live stream — which re-checks its own credential and ends when it is
 * gone (src/services/stream/credential-guard.ts). The message names accounts, never a key id or a
 * session's hash: a stream node re-checks the streams of those accounts only, so a key revoked
 * while another key of the same account streams leaves that other stream alone.
 *
 * Publish after the write has committed: a node that re-checks on the message must see it.
 *
 * @example
 * await accounts.deleteSession(ctx.db, hash);
 * announceRevoked(ctx.bus, [user.id]);
 */
import { decodeJson, encodeJson, type Bus } from '../bus/types';

export const CREDENTIALS_REVOKED_SUBJECT = 'config.credentials-revoked';

export function announceRevoked(bus: Pick<Bus, 'publish'>, userIds: readonly (string | null)[]): void {
  const ids = [...new Set(userIds.filter((id): id is string => typeof id === 'string' && id !== ''))];
  if (ids.length === 0) return;
  bus.publish(CREDENTIALS_REVOKED_SUBJECT, encodeJson({ userIds: ids }));
}

export function decodeRevoked(data: Uint8Array): string[] {
  const v = decodeJson<{ userIds?: unknown }>(data);
  return Array.isArray(v.userIds) ? v.userIds.filter((x): x is string => typeof x === 'string') : [];
}
