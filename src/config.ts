/**
 * Every setting, its env var and default, in one place. Parsed once at start into a frozen object;
 * a bad value stops start-up with a message naming the variable.
 */
import { resolve } from 'node:path';
import { parseIdJagProviders, type IdJagProvider } from './auth/agent/providers';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { AllowList } from './net/allow';
import { checked } from './schema-problem';
import { errorMessage } from './unknown';

export type Role = 'receiver' | 'api' | 'stream';

export interface Config {
  port: number;
  /** Separate receiver port; null = receiver shares `port`. */
  receiverPort: number | null;
  host: string;
  /**
   * SO_REUSEPORT on the listening sockets: several processes on one host share the port (the
   * kernel spreads connections), each with its own DATA_DIR. Off, a busy port stops start-up.
   */
  reusePort: boolean;
  baseUrl: string;
  receiverUrl: string;
  dataDir: string;
  databaseUrl: string | null;
  /** Postgres connections this node opens at most (DATABASE_POOL_MAX). */
  databasePoolMax: number;
  clickhouseUrl: string | null;
  /** One NATS URL, or several separated by commas (servers of one cluster, tried in turn). */
  natsUrl: string | null;
  /** Prefix of every NATS subject, so several deployments (or test runs) share one NATS. */
  natsPrefix: string;
  smtpUrl: string | null;
  mailFrom: string;
  /** AGENT_IDJAG_PROVIDERS, parsed: the identity providers whose ID-JAG assertions are trusted. */
  agentIdjagProviders: readonly IdJagProvider[];
  roles: ReadonlySet<Role>;
  /** Largest captured body in bytes; larger → 413. */
  maxBodyBytes: number;
  /** Provider detection on captures (on by default; off is for measuring its cost in bench/capture). */
  detectProviders: boolean;
  /** Shipper: flush a batch at this many rows … */
  shipBatchRows: number;
  /** … or at this many bytes of records (the records' JSON; bounds the worker's memory for large captures) … */
  shipBatchBytes: number;
  /** … or when the oldest unshipped capture is this old (ms). */
  shipMaxAgeMs: number;
  /** Unshipped captures held in memory before the receiver answers 503 (backpressure). */
  shipBacklogLimit: number;
  /** Live captures: bus flushes at least this far apart (ms); groups committed meanwhile travel together. */
  liveFlushMs: number;
  /** Roll the capture log to a new segment at this size. */
  logSegmentBytes: number;
  /**
   * SIGTERM/SIGINT: how long a shutdown may take (ms). Requests in flight, the shipper's drain and
   * the other background parts get what the deadline allows; the process exits by then.
   */
  shutdownTimeoutMs: number;
  /** Memory the receiver may spend remembering unknown slugs (estimated bytes). */
  unknownSlugCacheBytes: number;
  /** Endpoint snapshots the receiver keeps in memory at most (least recently used dropped first). */
  endpointCacheMax: number;
  /** Estimated bytes of endpoint snapshots the receiver keeps at most (mock responses can be large). */
  endpointCacheMaxBytes: number;
  /** A cached endpoint snapshot is re-read after at most this long (a backstop for a missed invalidation). */
  endpointCacheMaxAgeMs: number;
  /** Trust X-Forwarded-For for the sender ip (behind a proxy you control). */
  trustProxy: boolean;
  /** Default and max `limit` of the two request list calls. */
  listDefaultLimit: number;
  listMaxLimit: number;
  /** Search (SPEC 4.2): `limit` default and cap, and the deepest `offset` accepted. */
  search: { defaultLimit: number; maxLimit: number; maxOffset: number };
  /** Secret for HMACs of short codes (OTPs, user codes). When unset, generated once and kept in Postgres (server_secrets) for every node. */
  serverSecret: string | null;
  /** A browser session's lifetime from sign-in (it does not slide); also the cookie's Max-Age. */
  sessionTtlMs: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  stream: {
    /** Keepalive comment interval (SPEC: 30 s). */
    pingMs: number;
    /** A stream is closed after this long; the client reconnects (SPEC: 30 min). */
    maxMs: number;
    /** Events queued for one slow client before it is dropped. */
    clientBuffer: number;
    /** Bytes of events queued for one slow client before it is dropped (a capture's event can be megabytes). */
    clientBufferBytes: number;
    /**
     * How long a node keeps an endpoint's subscription, with the events it delivered, after its
     * last client left: a reconnect with Last-Event-ID to the same node within it resumes exactly.
     */
    resumeMs: number;
    /** Open streams per credential (API key or session) and per account, on one node; beyond: 429. */
    caps: { perCredential: number; perAccount: number };
    /**
     * How often a stream node re-checks, in one query, the credentials of all its open streams:
     * the backstop for a revocation whose bus announcement was lost.
     */
    recheckMs: number;
  };
  notify: {
    timeoutMs: number;
    maxAttempts: number;
    /** Pending notifications held in memory; beyond it new ones are dropped (and counted). */
    queueLimit: number;
    /** Of those, most one account (or one agent key's sandbox) may hold. */
    queuePerAccount: number;
    /** First retry delay (ms); doubles per attempt, with jitter. */
    backoffMs: number;
    /** Notifications being delivered at once. */
    concurrency: number;
  };
  /**
   * Outbound requests (notifications, send-test) never reach loopback, private, link-local or
   * metadata addresses, unless the host (name or IP, optionally :port) is listed here.
   */
  outboundAllow: AllowList;
  /** POST /api/requests/{id}/replay: the whole exchange with the target, lookups to body. */
  replayTimeoutMs: number;
  /** Plan name → monthly request quota and capture retention (days). Accounts start on `free`. */
  plans: Readonly<Record<string, { limit: number; retentionDays: number }>>;
  /** Removal of captures past their plan's retention, and pins that keep one (docs/retention.md). */
  retention: {
    everyMs: number;
    /** SQLite rows deleted per statement; the sweep yields to the event loop between batches. */
    batchRows: number;
    /** Added to the clock when deciding what has expired (tests: "it is 8 days later"). */
    clockOffsetMs: number;
    /** Pinned captures one account may hold. */
    pinLimit: number;
  };
  /** How often each node's usage meter flushes its counters to Postgres. */
  usageFlushMs: number;
  /** Fixed-window request limits (SPEC 8), counted in Postgres so they hold across nodes; null = off. */
  rateLimits: {
    /** Every /api route, per credential (API key or session), per ip without one. */
    api: RateRule | null;
    /** Sign-up and log-in, per client ip (on top of `api`). */
    auth: RateRule | null;
    /** Log-in attempts per account (email), from any address. */
    loginAccount: RateRule | null;
    /** Password-reset requests per email address (known account or not), from any address. */
    resetEmail: RateRule | null;
    /** API requests with an unknown or revoked token, per client ip (src/http/auth-failures.ts). */
    authFailures: RateRule | null;
  };
  agent: {
    /** Sandbox endpoint lifetime and per-key cap (SPEC 4.9). */
    sandboxTtlMs: number;
    sandboxMaxEndpoints: number;
    /** Captures a month the sandbox endpoints of one unclaimed key may make (per receiver node). */
    sandboxMaxCaptures: number;
    /** Pending anonymous registrations before `temporarily_unavailable`. */
    maxPending: number;
    /** Lifetime of claim tokens and user codes. */
    claimTtlMs: number;
    /** Minimum time between two JWKS refetches of one issuer (unknown kid). */
    jwksCooldownMs: number;
    /** Accept http:// issuers (local test identity providers only). */
    allowInsecureIssuers: boolean;
    /** Lifetime of an emailed one-time code (SPEC 5.7: 10 minutes; settable for tests). */
    otpTtlMs: number;
    /** Registrations, OTP attempts and claim attempts, each per client address; null = off. */
    ratePerIp: RateRule | null;
    /** Registrations and OTP attempts per email address; null = off. */
    ratePerEmail: RateRule | null;
  };
  /** A team invite still pending this long after it was made expires (INVITE_TTL_DAYS). */
  inviteTtlMs: number;
  /** Teams one account may own at once (TEAM_LIMIT); 0 = no one can create a team. */
  teamLimit: number;
  /** How long an emailed password-reset link works (PASSWORD_RESET_TTL_MS). */
  passwordResetTtlMs: number;
  /** How long a mailed sign-up verification link works (EMAIL_VERIFY_TTL_MS). */
  emailVerifyTtlMs: number;
  /** Teams subscription billing (SPEC 4.5) through Stripe webhooks. */
  stripe: {
    /** Signing secret of the Stripe webhook endpoint (whsec_…); null = the webhook route is off. Never returned. */
    webhookSecret: string | null;
    /** Largest accepted age (either way) of a Stripe-Signature timestamp. */
    toleranceSeconds: number;
  };
  /**
   * Bearer token of the operator API under /admin/api (docs/operations.md); null = that API is
   * off. Compared in constant time, never returned or logged.
   */
  adminToken: string | null;
  /**
   * Bearer token of the Prometheus scrape endpoint `/metrics` (docs/operations.md); null = that
   * route is off (404). Compared in constant time, never returned or logged.
   */
  metricsToken: string | null;
}

/** At most `limit` requests per `windowMs`. */
export interface RateRule {
  limit: number;
  windowMs: number;
}

type Env = Record<string, string | undefined>;

class ConfigError extends Error {}

function int(env: Env, name: string, def: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  if (n > max) throw new ConfigError(`${name} must be at most ${max}, got ${n}`);
  return n;
}

/** A number > 0, fractions allowed (INVITE_TTL_DAYS=0.5 is twelve hours). */
function positive(env: Env, name: string, def: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${name} must be a number > 0, got "${raw}"`);
  return n;
}

/** A TCP port (PORT, RECEIVER_PORT): a larger number would only fail later, at listen. */
function port(env: Env, name: string, def: number): number {
  return int(env, name, def, 0, 65_535);
}

/** A URL as it may appear in a message: user and password (DATABASE_URL's) never do. */
function shownUrl(raw: string): string {
  return raw.replace(/\/\/[^/@\s]*@/g, '//…@');
}

/**
 * A URL with one of the schemes its client understands. `localhost:3000` parses as a URL with the
 * scheme "localhost:", and `http://` given to DATABASE_URL fails at connect with a stack trace: both
 * stop start-up here instead.
 */
function url(env: Env, name: string, def: string | null, schemes: readonly string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${shownUrl(raw)}"`);
  }
  if (!schemes.includes(parsed.protocol.slice(0, -1)) || parsed.hostname === '') {
    throw new ConfigError(`${name} must be a ${schemes.map((s) => `${s}://`).join(' or ')} URL with a host, got "${shownUrl(raw)}"`);
  }
  return raw;
}

const HTTP = ['http', 'https'] as const;

/** A comma-separated list of URLs, each checked; kept as written (null when unset). */
function urlList(env: Env, name: string, schemes: readonly string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  for (const part of raw.split(',')) url({ [name]: part.trim() }, name, null, schemes);
  return raw;
}

function json<S extends TSchema>(env: Env, name: string, def: Static<S>, schema: S): Static<S> {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(`${name} must be JSON`);
  }
  return checked(schema, parsed, (problem) => new ConfigError(`${name} has the wrong shape: ${problem}`));
}

function list(env: Env, name: string): string[] {
  return (env[name] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

/** A comma list of outbound allow entries, each checked now so a typo stops start-up. */
function allowList(env: Env, name: string): AllowList {
  try {
    return AllowList.parse(list(env, name));
  } catch (err) {
    throw new ConfigError(`${name}: ${errorMessage(err)}`);
  }
}

const Plan = Type.Object({ limit: Type.Integer({ minimum: 0 }), retentionDays: Type.Optional(Type.Integer({ minimum: 1 })) });
/** `{"free": {"limit": n, "retentionDays"?: d}, "<plan>": {…}, …}`: a free plan and any others. */
const PlansSchema = Type.Object({ free: Plan }, { additionalProperties: Plan });

const DEFAULT_PLANS = {
  free: { limit: 100_000, retentionDays: 7 },
  pro: { limit: 5_000_000, retentionDays: 30 },
  teams: { limit: 20_000_000, retentionDays: 90 },
};

/** A plan in PLANS without retentionDays keeps its default's, or 30 days for a name of its own. */
function withRetention(plans: Record<string, { limit: number; retentionDays?: number }>): Record<string, { limit: number; retentionDays: number }> {
  const defaults: Record<string, { retentionDays: number }> = DEFAULT_PLANS;
  return Object.fromEntries(
    Object.entries(plans).map(([name, p]) => [name, Object.freeze({ limit: p.limit, retentionDays: p.retentionDays ?? defaults[name]?.retentionDays ?? 30 })]),
  );
}

/** "600/60" = 600 requests per 60 seconds; "off" disables the limit. */
function rateRule(env: Env, name: string, def: RateRule): RateRule | null {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return def;
  if (raw === 'off') return null;
  const m = /^(\d+)\/(\d+)$/.exec(raw);
  const limit = Number(m?.[1]);
  const seconds = Number(m?.[2]);
  if (!m || limit < 1 || seconds < 1) throw new ConfigError(`${name} must be "<requests>/<seconds>" (both ≥ 1) or "off", got "${raw}"`);
  return { limit, windowMs: seconds * 1000 };
}

/**
 * Parsed here, once: a bad provider list must stop start-up with the one-line config message, on
 * every role, before anything is opened.
 */
function idjagProviders(env: Env, insecureOk: boolean): readonly IdJagProvider[] {
  const raw = env.AGENT_IDJAG_PROVIDERS;
  try {
    return parseIdJagProviders(raw, { allowInsecureIssuers: insecureOk });
  } catch (err) {
    // The parser's messages already start with the variable's name; a pasted value may hold line breaks.
    throw new ConfigError(errorMessage(err).replace(/\s*[\r\n]+\s*/g, ' '));
  }
}

function bool(env: Env, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (/^(1|true|yes)$/i.test(raw)) return true;
  if (/^(0|false|no)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** A guessable operator token would open every account's plan and the whole data dir: 24 characters at least. */
function adminToken(env: Env): string | null {
  return bearerSetting(env, 'ADMIN_TOKEN');
}

/**
 * The scrape token sits in every Prometheus config that scrapes the node, so it must not also be
 * the operator token, which changes plans and writes backups.
 */
function metricsToken(env: Env, admin: string | null): string | null {
  const raw = bearerSetting(env, 'METRICS_TOKEN');
  if (raw !== null && raw === admin) throw new ConfigError('METRICS_TOKEN must differ from ADMIN_TOKEN (a scraper needs no operator rights)');
  return raw;
}

function bearerSetting(env: Env, name: string): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  // The value itself never goes into the message.
  if (raw.length < 24 || /\s/.test(raw)) throw new ConfigError(`${name} must be at least 24 characters without spaces (e.g. openssl rand -hex 32)`);
  return raw;
}

/**
 * SERVER_SECRET keys the HMACs of one-time codes and reset tokens: a short one could be guessed
 * offline from one mailed code and its stored HMAC. 32 characters at least, like the generated one
 * (43); no white space (a pasted value's stray newline would make nodes disagree).
 */
function serverSecret(env: Env): string | null {
  const raw = env.SERVER_SECRET;
  if (raw === undefined || raw === '') return null;
  // The value itself never goes into the message.
  if (raw.length < 32 || /\s/.test(raw)) {
    const got = raw.length < 32 ? `${raw.length} characters` : 'white space in it';
    throw new ConfigError(`SERVER_SECRET must be at least 32 characters without spaces or line breaks (e.g. openssl rand -hex 32), got ${got}`);
  }
  return raw;
}

/**
 * MAIL_FROM becomes the From header and the SMTP envelope sender: exactly one address, optionally
 * with a display name (`hookcap <no-reply@example.com>`, `"Hook, Inc." <no-reply@example.com>`).
 * Unchecked, nodemailer made `a@x\r\nBcc: b@y` a From of `a@x Bcc:b@y` with `b@y` as the envelope
 * sender, and a comma a second From address.
 */
function mailFrom(env: Env): string {
  const raw = env.MAIL_FROM;
  if (raw === undefined || raw === '') return 'hookcap <no-reply@localhost>';
  const addr = /[^\s@<>()",;:\\[\]]+@[^\s@<>()",;:\\[\]]+/.source;
  // Control characters (CR, LF among them) nowhere; a quoted name may hold commas.
  const name = /(?:[^\x00-\x1f\x7f<>()",;:@\\[\]]*|"[^\x00-\x1f\x7f"\\]*")/.source;
  if (!new RegExp(`^(?:${addr}|${name}\\s*<${addr}>)$`).test(raw)) {
    throw new ConfigError(`MAIL_FROM must be one address, optionally with a name ("hookcap <no-reply@example.com>"), on one line, got ${JSON.stringify(raw)}`);
  }
  return raw;
}

/** A default limit above its maximum is refused rather than silently lowered; unset, the default follows the maximum down. */
function defaultLimit(env: Env, name: string, def: number, maxName: string, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return Math.min(def, max);
  const n = int(env, name, def, 1);
  if (n > max) throw new ConfigError(`${name} must be at most ${maxName} (${max}), got ${n}`);
  return n;
}

const ROLES: readonly Role[] = ['receiver', 'api', 'stream'];

/**
 * SHIP_MAX_AGE_MS when unset. ClickHouse: about one insert a second per node, as its MergeTree
 * guidance asks; each insert is a part written to disk and merged later (docs/benchmarks.md: on one
 * disk with the capture log, four a second raised the ack p99 by half). SQLite takes small inserts
 * cheaply, and search sees captures sooner.
 */
export function defaultShipMaxAgeMs(clickhouse: boolean): number {
  return clickhouse ? 1000 : 250;
}

export function loadConfig(env: Env = process.env): Config {
  const apiPort = port(env, 'PORT', 3000);
  const receiverPortRaw = env.RECEIVER_PORT;
  const receiverPort = receiverPortRaw ? port(env, 'RECEIVER_PORT', 0) : null;
  // Two listeners on one port: the second would fail with "address in use", naming no setting.
  if (receiverPort !== null && receiverPort !== 0 && receiverPort === apiPort) {
    throw new ConfigError(`RECEIVER_PORT must differ from PORT (both ${apiPort}); leave it unset to serve /w/ on PORT`);
  }
  const host = env.HOST || '0.0.0.0';
  const baseUrl = (url(env, 'BASE_URL', `http://localhost:${apiPort}`, HTTP) ?? '').replace(/\/+$/, '');
  const receiverUrl = (
    url(env, 'RECEIVER_URL', receiverPort === null ? baseUrl : `http://localhost:${receiverPort}`, HTTP) ?? baseUrl
  ).replace(/\/+$/, '');
  const roleNames = (env.ROLES || ROLES.join(',')).split(',').map((r) => r.trim()).filter(Boolean);
  for (const r of roleNames) {
    if (!ROLES.includes(r as Role)) throw new ConfigError(`ROLES has unknown role "${r}" (use ${ROLES.join(', ')})`);
  }
  // "ROLES=," would start a node that serves nothing.
  if (roleNames.length === 0) throw new ConfigError(`ROLES must name at least one role (${ROLES.join(', ')}), got "${env.ROLES}"`);
  const natsPrefix = env.NATS_PREFIX || 'hookcap';
  // Every subject is `<prefix>.<name>`: a space, `*` or `>` in the prefix would make them invalid or wildcards.
  if (!/^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/.test(natsPrefix)) {
    throw new ConfigError(`NATS_PREFIX must be letters, digits, "_" or "-", in parts separated by dots, got "${natsPrefix}"`);
  }
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel'];
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be debug, info, warn or error`);
  const listMaxLimit = int(env, 'LIST_MAX_LIMIT', 1000, 1);
  const searchMaxLimit = int(env, 'SEARCH_MAX_LIMIT', 1000, 1);
  const clickhouseUrl = url(env, 'CLICKHOUSE_URL', null, HTTP);
  return Object.freeze({
    port: apiPort,
    receiverPort,
    host,
    reusePort: bool(env, 'REUSE_PORT', false),
    baseUrl,
    receiverUrl,
    dataDir: resolve(env.DATA_DIR || './data'),
    databaseUrl: url(env, 'DATABASE_URL', null, ['postgres', 'postgresql']),
    databasePoolMax: int(env, 'DATABASE_POOL_MAX', 10, 1),
    clickhouseUrl,
    natsUrl: urlList(env, 'NATS_URL', ['nats', 'tls']),
    natsPrefix,
    smtpUrl: url(env, 'SMTP_URL', null, ['smtp', 'smtps']),
    mailFrom: mailFrom(env),
    agentIdjagProviders: idjagProviders(env, bool(env, 'AGENT_ALLOW_INSECURE_ISSUERS', false)),
    roles: new Set(roleNames as Role[]),
    maxBodyBytes: int(env, 'MAX_BODY_BYTES', 1024 * 1024, 1),
    detectProviders: bool(env, 'DETECT_PROVIDERS', true),
    // Large enough that one node at its peak (~30,000/s here) still inserts about once a second:
    // ClickHouse's CPU per capture was 6.1-6.8 µs with 10,000-row batches, 3.6-4.1 with 30,000
    // (docs/benchmarks.md). The worker holds one batch (~35 MB of records at ~1.2 KB each).
    shipBatchRows: int(env, 'SHIP_BATCH_ROWS', 30_000, 1),
    shipBatchBytes: int(env, 'SHIP_BATCH_BYTES', 32 * 1024 * 1024, 1),
    shipMaxAgeMs: int(env, 'SHIP_MAX_AGE_MS', defaultShipMaxAgeMs(clickhouseUrl !== null), 1),
    shipBacklogLimit: int(env, 'SHIP_BACKLOG_LIMIT', 200_000, 1),
    // 0: every group commit is published in the turn it becomes durable, so a node killed right
    // after an ack has published it. 5 ms halved NATS's CPU per capture at peak but let a SIGKILL
    // lose up to 5 ms of acknowledged captures from live streams (docs/stream.md).
    liveFlushMs: int(env, 'LIVE_FLUSH_MS', 0, 0, 1000),
    logSegmentBytes: int(env, 'LOG_SEGMENT_BYTES', 64 * 1024 * 1024, 4096),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 100),
    unknownSlugCacheBytes: int(env, 'UNKNOWN_SLUG_CACHE_BYTES', 4 * 1024 * 1024, 0),
    endpointCacheMax: int(env, 'ENDPOINT_CACHE_MAX', 100_000, 1),
    endpointCacheMaxBytes: int(env, 'ENDPOINT_CACHE_MAX_BYTES', 256 * 1024 * 1024, 1),
    endpointCacheMaxAgeMs: int(env, 'ENDPOINT_CACHE_MAX_AGE_MS', 300_000, 1_000),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    listDefaultLimit: defaultLimit(env, 'LIST_DEFAULT_LIMIT', 50, 'LIST_MAX_LIMIT', listMaxLimit),
    listMaxLimit,
    search: Object.freeze({
      defaultLimit: defaultLimit(env, 'SEARCH_DEFAULT_LIMIT', 50, 'SEARCH_MAX_LIMIT', searchMaxLimit),
      maxLimit: searchMaxLimit,
      maxOffset: int(env, 'SEARCH_MAX_OFFSET', 10_000, 0),
    }),
    serverSecret: serverSecret(env),
    sessionTtlMs: int(env, 'SESSION_TTL_MS', 30 * 24 * 3600_000, 1000),
    logLevel,
    stream: Object.freeze({
      pingMs: int(env, 'STREAM_PING_MS', 30_000, 10),
      maxMs: int(env, 'STREAM_MAX_MS', 30 * 60_000, 100),
      clientBuffer: int(env, 'STREAM_CLIENT_BUFFER', 1_000, 1),
      clientBufferBytes: int(env, 'STREAM_CLIENT_BUFFER_BYTES', 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      resumeMs: int(env, 'STREAM_RESUME_MS', 10_000, 0),
      caps: Object.freeze({ perCredential: int(env, 'STREAM_MAX_PER_KEY', 25, 1), perAccount: int(env, 'STREAM_MAX_PER_ACCOUNT', 100, 1) }),
      recheckMs: int(env, 'STREAM_RECHECK_MS', 60_000, 100),
    }),
    notify: Object.freeze({
      timeoutMs: int(env, 'NOTIFY_TIMEOUT_MS', 5_000, 1),
      maxAttempts: int(env, 'NOTIFY_MAX_ATTEMPTS', 5, 1),
      queueLimit: int(env, 'NOTIFY_QUEUE_LIMIT', 10_000, 1),
      queuePerAccount: int(env, 'NOTIFY_QUEUE_PER_ACCOUNT', 1_000, 1),
      backoffMs: int(env, 'NOTIFY_BACKOFF_MS', 1_000, 1),
      concurrency: int(env, 'NOTIFY_CONCURRENCY', 8, 1),
    }),
    outboundAllow: allowList(env, 'OUTBOUND_ALLOW'),
    replayTimeoutMs: int(env, 'REPLAY_TIMEOUT_MS', 10_000, 1),
    plans: Object.freeze(withRetention(json(env, 'PLANS', DEFAULT_PLANS, PlansSchema))),
    retention: Object.freeze({
      everyMs: int(env, 'RETENTION_INTERVAL_MS', 3_600_000, 1_000),
      batchRows: int(env, 'RETENTION_BATCH_ROWS', 500, 1),
      clockOffsetMs: int(env, 'RETENTION_CLOCK_OFFSET_MS', 0, Number.MIN_SAFE_INTEGER),
      pinLimit: int(env, 'PIN_LIMIT', 100, 0),
    }),
    usageFlushMs: int(env, 'USAGE_FLUSH_MS', 1_000, 10),
    rateLimits: Object.freeze({
      api: rateRule(env, 'RATE_LIMIT_API', { limit: 600, windowMs: 60_000 }),
      auth: rateRule(env, 'RATE_LIMIT_AUTH', { limit: 20, windowMs: 60_000 }),
      loginAccount: rateRule(env, 'RATE_LIMIT_LOGIN_ACCOUNT', { limit: 10, windowMs: 900_000 }),
      resetEmail: rateRule(env, 'RATE_LIMIT_RESET_EMAIL', { limit: 5, windowMs: 3_600_000 }),
      authFailures: rateRule(env, 'RATE_LIMIT_AUTH_FAILURES', { limit: 600, windowMs: 600_000 }),
    }),
    agent: Object.freeze({
      sandboxTtlMs: int(env, 'SANDBOX_TTL_MS', 24 * 3600_000, 1000),
      sandboxMaxEndpoints: int(env, 'SANDBOX_MAX_ENDPOINTS', 3, 1),
      sandboxMaxCaptures: int(env, 'SANDBOX_MAX_CAPTURES', 1_000, 0),
      maxPending: int(env, 'AGENT_MAX_PENDING', 10_000, 1),
      claimTtlMs: int(env, 'CLAIM_TTL_MS', 3600_000, 1000),
      jwksCooldownMs: int(env, 'JWKS_COOLDOWN_MS', 30_000, 0),
      allowInsecureIssuers: bool(env, 'AGENT_ALLOW_INSECURE_ISSUERS', false),
      otpTtlMs: int(env, 'AGENT_OTP_TTL_MS', 10 * 60_000, 1000),
      ratePerIp: rateRule(env, 'AGENT_RATE_LIMIT_IP', { limit: 20, windowMs: 600_000 }),
      ratePerEmail: rateRule(env, 'AGENT_RATE_LIMIT_EMAIL', { limit: 5, windowMs: 600_000 }),
    }),
    inviteTtlMs: Math.max(1, Math.round(positive(env, 'INVITE_TTL_DAYS', 7) * 86_400_000)),
    teamLimit: int(env, 'TEAM_LIMIT', 20, 0),
    passwordResetTtlMs: int(env, 'PASSWORD_RESET_TTL_MS', 30 * 60_000, 1000),
    emailVerifyTtlMs: int(env, 'EMAIL_VERIFY_TTL_MS', 48 * 3_600_000, 1000),
    stripe: Object.freeze({
      webhookSecret: env.STRIPE_WEBHOOK_SECRET || null,
      toleranceSeconds: int(env, 'STRIPE_WEBHOOK_TOLERANCE_SECONDS', 300, 1),
    }),
    adminToken: adminToken(env),
    metricsToken: metricsToken(env, env.ADMIN_TOKEN || null),
  });
}

export function loadConfigOrExit(env: Env = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`config: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
}
