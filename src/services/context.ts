import type { Bus } from '../bus/types';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { Mailer } from '../mail';
import type { CaptureStore } from '../stores/captures/types';
import type { Db } from '../stores/state/db';
import type { ApiKeyRow, UserRow } from '../stores/state/schema';
import type { AgentDeps } from './agent/deps';
import type { Background } from './background';
import type { ServerSecrets } from './secrets';
import type { StreamGuards } from './stream/guards';

/** The stores, bus and settings a service runs on; `createServices` builds the rest from them. */
export interface BaseCtx {
  config: Config;
  db: Db;
  captures: CaptureStore;
  bus: Bus;
  /** Where every verb reads the time (the system clock, or a test's): never Date.now() directly. */
  clock: Clock;
  /**
   * This node's endpoint cache. Endpoint writes drop its snapshot before they return, so a capture
   * on this node right after a PATCH answers with the new config; other nodes learn from the bus.
   */
  endpointCache?: { invalidate(slug: string): void };
}

/**
 * What every verb may use. Built once, by `createServices` (services/build.ts) from app.ts, which
 * also closes what it holds at shutdown: nothing here is made lazily elsewhere.
 */
export interface Ctx extends BaseCtx {
  /** The node's one mail sender (SMTP when SMTP_URL is set, else the outbox under DATA_DIR). */
  mailer: Mailer;
  /** What the agent verbs need beyond this: providers, JWKS cache, the server secret. */
  agent: AgentDeps;
  /** The guards that end open streams when their endpoint or their viewer's access goes. */
  streams: StreamGuards;
  /** SERVER_SECRET's derived keys, or the generated ones kept in Postgres. */
  secrets: ServerSecrets;
  /** Work started after an answer (a mail); shutdown waits for it. */
  background: Background;
}

/** Who is calling. An unclaimed agent key has no account: it may use only the sandbox. */
export type Principal =
  /** `expiresAt`: when the session ends (sessions do not slide: set once, at sign-in). */
  | { kind: 'session'; user: UserRow; tokenHash: string; expiresAt: number }
  | { kind: 'key'; user: UserRow; key: ApiKeyRow }
  | { kind: 'agent'; key: ApiKeyRow };
