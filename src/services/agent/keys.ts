/**
 * Agent-specific pieces of key issuing: the scopes a claimed key gets and the key's display name.
 * The keys themselves are issued by services/api-keys.ts; the account behind a proven email is
 * found (or recovered, or provisioned) by services/address-proof.ts.
 */
import { DEFAULT_SCOPES } from '../api-keys';

/** What a claimed or account-bound agent key may do (SPEC 2.9; advisory, SPEC 5.5). */
export const POST_CLAIM_SCOPES: readonly string[] = DEFAULT_SCOPES;

/** Display name of an agent key, bounded and single-line. */
export function agentKeyName(label: string): string {
  return `agent: ${label}`.slice(0, 100);
}
