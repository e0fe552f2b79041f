/**
 * Caps on concurrent live streams, per credential (an API key or a browser session) and per
 * account, on this node. An open stream holds a socket, a queue and a bus subscription for up to
 * STREAM_MAX_MS; without a cap one key could hold thousands. Beyond a cap: 429 `too_many_streams`.
 */
import { AppError } from '../errors';
import type { Principal } from '../services/context';

export interface StreamCaps {
  perCredential: number;
  perAccount: number;
}

/** Seconds a refused client should wait: a stream of its own must end first. */
const RETRY_AFTER_SECONDS = '30';

/** The credential a principal presented: one bucket per API key, one per browser session. */
export function credentialOf(p: Principal): string {
  return p.kind === 'session' ? `ses:${p.tokenHash}` : `key:${p.key.id}`;
}

export class StreamQuota {
  private readonly byCredential = new Map<string, number>();
  private readonly byAccount = new Map<string, number>();

  constructor(private readonly caps: StreamCaps) {}

  /** Takes one stream slot for both; throws 429 when either is full. Returns its release (safe to call twice). */
  acquire(credential: string, account: string): () => void {
    const c = this.byCredential.get(credential) ?? 0;
    const a = this.byAccount.get(account) ?? 0;
    if (c >= this.caps.perCredential) throw refused(`this key (or session) already has ${c} open streams, the most allowed on one node`);
    if (a >= this.caps.perAccount) throw refused(`this account already has ${a} open streams, the most allowed on one node`);
    this.byCredential.set(credential, c + 1);
    this.byAccount.set(account, a + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      decrement(this.byCredential, credential);
      decrement(this.byAccount, account);
    };
  }
}

function refused(message: string): AppError {
  return new AppError('too_many_streams', `${message}; close one first`, { 'retry-after': RETRY_AFTER_SECONDS });
}

function decrement(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 0) - 1;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
