/**
 * Every setting, its env var and default, in one place. Parsed once at start into a frozen object;
 * a bad value stops start-up with a message naming the variable.
 */
import { resolve } from 'node:path';

export type Role = 'receiver' | 'api' | 'stream';

export interface Config {
  port: number;
  /** Separate receiver port; null = receiver shares `port`. */
  receiverPort: number | null;
  host: string;
  baseUrl: string;
  receiverUrl: string;
  dataDir: string;
  databaseUrl: string | null;
  clickhouseUrl: string | null;
  natsUrl: string | null;
  /** Prefix of every NATS subject, so several deployments (or test runs) share one NATS. */
  natsPrefix: string;
  smtpUrl: string | null;
  mailFrom: string;
  agentIdjagProviders: string | undefined;
  roles: ReadonlySet<Role>;
  /** Largest captured body in bytes; larger → 413. */
  maxBodyBytes: number;
  /** Shipper: flush a batch at this many rows … */
  shipBatchRows: number;
  /** … or when the oldest unshipped capture is this old (ms). */
  shipMaxAgeMs: number;
  /** Unshipped captures held in memory before the receiver answers 503 (backpressure). */
  shipBacklogLimit: number;
  /** Roll the capture log to a new segment at this size. */
  logSegmentBytes: number;
  /** Trust X-Forwarded-For for the sender ip (behind a proxy you control). */
  trustProxy: boolean;
  /** Default and max `limit` of the two request list calls. */
  listDefaultLimit: number;
  listMaxLimit: number;
  /** Secret for HMACs of short codes (OTPs). Generated per data dir when unset. */
  serverSecret: string | null;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
}

type Env = Record<string, string | undefined>;

class ConfigError extends Error {}

function int(env: Env, name: string, def: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  return n;
}

function url(env: Env, name: string, def: string | null): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  try {
    new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  return raw;
}

function bool(env: Env, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (/^(1|true|yes)$/i.test(raw)) return true;
  if (/^(0|false|no)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

const ROLES: readonly Role[] = ['receiver', 'api', 'stream'];

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 3000);
  const receiverPortRaw = env.RECEIVER_PORT;
  const receiverPort = receiverPortRaw ? int(env, 'RECEIVER_PORT', 0) : null;
  const host = env.HOST || '0.0.0.0';
  const baseUrl = (url(env, 'BASE_URL', `http://localhost:${port}`) ?? '').replace(/\/+$/, '');
  const receiverUrl = (
    url(env, 'RECEIVER_URL', receiverPort === null ? baseUrl : `http://localhost:${receiverPort}`) ?? baseUrl
  ).replace(/\/+$/, '');
  const roleNames = (env.ROLES || ROLES.join(',')).split(',').map((r) => r.trim()).filter(Boolean);
  for (const r of roleNames) {
    if (!ROLES.includes(r as Role)) throw new ConfigError(`ROLES has unknown role "${r}" (use ${ROLES.join(', ')})`);
  }
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel'];
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be debug, info, warn or error`);
  const listMaxLimit = int(env, 'LIST_MAX_LIMIT', 1000, 1);
  return Object.freeze({
    port,
    receiverPort,
    host,
    baseUrl,
    receiverUrl,
    dataDir: resolve(env.DATA_DIR || './data'),
    databaseUrl: url(env, 'DATABASE_URL', null),
    clickhouseUrl: url(env, 'CLICKHOUSE_URL', null),
    natsUrl: url(env, 'NATS_URL', null),
    natsPrefix: env.NATS_PREFIX || 'hookcap',
    smtpUrl: url(env, 'SMTP_URL', null),
    mailFrom: env.MAIL_FROM || 'hookcap <no-reply@localhost>',
    agentIdjagProviders: env.AGENT_IDJAG_PROVIDERS,
    roles: new Set(roleNames as Role[]),
    maxBodyBytes: int(env, 'MAX_BODY_BYTES', 1024 * 1024, 1),
    shipBatchRows: int(env, 'SHIP_BATCH_ROWS', 10_000, 1),
    shipMaxAgeMs: int(env, 'SHIP_MAX_AGE_MS', 250, 1),
    shipBacklogLimit: int(env, 'SHIP_BACKLOG_LIMIT', 200_000, 1),
    logSegmentBytes: int(env, 'LOG_SEGMENT_BYTES', 64 * 1024 * 1024, 4096),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    listDefaultLimit: Math.min(int(env, 'LIST_DEFAULT_LIMIT', 50, 1), listMaxLimit),
    listMaxLimit,
    serverSecret: env.SERVER_SECRET || null,
    logLevel,
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
