import type { Bus } from '../bus/types';
import type { Config } from '../config';
import type { CaptureStore } from '../stores/captures/types';
import type { Db } from '../stores/state/db';
import type { ApiKeyRow, UserRow } from '../stores/state/schema';

/** What every verb may use. Built once in main.ts. */
export interface Ctx {
  config: Config;
  db: Db;
  captures: CaptureStore;
  bus: Bus;
  /**
   * This node's endpoint cache. Endpoint writes drop its snapshot before they return, so a capture
   * on this node right after a PATCH answers with the new config; other nodes learn from the bus.
   */
  endpointCache?: { invalidate(slug: string): void };
}

/** Who is calling. An unclaimed agent key has no account: it may use only the sandbox. */
export type Principal =
  | { kind: 'session'; user: UserRow; tokenHash: string }
  | { kind: 'key'; user: UserRow; key: ApiKeyRow }
  | { kind: 'agent'; key: ApiKeyRow };
