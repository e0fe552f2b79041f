/**
 * The server's keys, made once per service by createServices. Each is derived from SERVER_SECRET
 * when it is set, else generated once and kept in Postgres for every node. Read on first use and
 * kept; a failed read is not kept, so the next request tries again.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { getOrCreateSecret } from '../stores/state/agent';
import type { BaseCtx } from './context';

export interface ServerSecrets {
  /** HMAC key of the agent flows' one-time codes and user codes. */
  codeHmac(): Promise<string>;
  /** MAC key of the request list's page cursors. */
  pageCursor(): Promise<string>;
}

export function createServerSecrets(base: Pick<BaseCtx, 'config' | 'db' | 'clock'>): ServerSecrets {
  const fixed = base.config.serverSecret;
  const stored = (name: string) => () => getOrCreateSecret(base.db, name, randomBytes(32).toString('base64url'), base.clock.now());
  return {
    codeHmac: remembered(fixed ? async () => fixed : stored('code-hmac')),
    pageCursor: remembered(fixed ? async () => createHmac('sha256', fixed).update('page-cursor').digest('base64url') : stored('page-cursor')),
  };
}

function remembered(read: () => Promise<string>): () => Promise<string> {
  let value: Promise<string> | null = null;
  return () => {
    value ??= read().catch((e: unknown) => {
      value = null;
      throw e;
    });
    return value;
  };
}
