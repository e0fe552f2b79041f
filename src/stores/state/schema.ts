/**
 * Drizzle description of the tables created by sql/*.sql. The SQL files are the truth (they run
 * on Postgres and PGlite alike); this file only types the queries. test/stores/state-schema.test.ts
 * compares the two on both backends: a change to one needs the same change to the other.
 */
import { bigint, boolean, json, jsonb, pgTable, text } from 'drizzle-orm/pg-core';

const ms = (name: string) => bigint(name, { mode: 'number' });

export const users = pgTable('users', {
  id: text('id').primaryKey(),
  email: text('email').notNull(),
  passwordHash: text('password_hash'),
  plan: text('plan').notNull().default('free'),
  createdAt: ms('created_at').notNull(),
  /** When the address was first proven (sql/013_email_verified.sql); null while never proven. */
  emailVerifiedAt: ms('email_verified_at'),
});

export const sessions = pgTable('sessions', {
  tokenHash: text('token_hash').primaryKey(),
  userId: text('user_id').notNull(),
  createdAt: ms('created_at').notNull(),
  expiresAt: ms('expires_at').notNull(),
});

export const apiKeys = pgTable('api_keys', {
  id: text('id').primaryKey(),
  userId: text('user_id'),
  keyHash: text('key_hash').notNull(),
  prefix: text('prefix').notNull(),
  name: text('name').notNull(),
  // sql/001_accounts.sql's default; every insert names its scopes.
  scopes: text('scopes').array().notNull().default(['webhooks:read', 'webhooks:write']),
  createdAt: ms('created_at').notNull(),
  revokedAt: ms('revoked_at'),
});

export interface MockResponse {
  status: number;
  body: string;
  /** Header values as their owner typed them (text): what the API answers (docs/api.md). */
  headers: Record<string, string>;
  /**
   * The same headers as the receiver sends them: each value's UTF-8 bytes, one character per byte
   * (`typedHeaderValue`), converted once when the mock is saved. Only when some value is not ASCII;
   * mocks saved before it held byte-form (Latin-1) values in `headers` and are served from them.
   */
  wireHeaders?: Record<string, string>;
}

export const endpoints = pgTable('endpoints', {
  id: text('id').primaryKey(),
  slug: text('slug').notNull(),
  name: text('name').notNull(),
  userId: text('user_id'),
  ownerKeyId: text('owner_key_id'),
  // json, not jsonb: jsonb sorts keys, and the headers are answered and sent in the order saved (sql/016).
  mockResponse: json('mock_response').$type<MockResponse | null>(),
  notificationUrl: text('notification_url'),
  signing: jsonb('signing').$type<Record<string, unknown> | null>(),
  /** sql/014_notification_secret.sql: the secret outgoing notifications are signed with. */
  notificationSigning: jsonb('notification_signing').$type<{ secret: string; createdAt: number } | null>(),
  clearedAt: ms('cleared_at').notNull().default(0),
  expiresAt: ms('expires_at'),
  createdAt: ms('created_at').notNull(),
});

export const capturePurges = pgTable('capture_purges', {
  endpointId: text('endpoint_id').primaryKey(),
  queuedAt: ms('queued_at').notNull(),
});

export type UserRow = typeof users.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type EndpointRow = typeof endpoints.$inferSelect;

// --- Agent registration (sql/003_agent.sql) ---------------------------------------------------
// A namespace import keeps this block independent of the import line above, which other features
// extend.
import * as agentPg from 'drizzle-orm/pg-core';

export const agentRegistrations = pgTable('agent_registrations', {
  id: text('id').primaryKey(),
  type: text('type').$type<'anonymous' | 'verified_email'>().notNull(),
  status: text('status').$type<'pending' | 'claimed' | 'denied'>().notNull().default('pending'),
  clientName: text('client_name').notNull(),
  claimTokenHash: text('claim_token_hash').notNull(),
  userCodeHash: text('user_code_hash'),
  email: text('email'),
  otpHash: text('otp_hash'),
  otpAttempts: agentPg.integer('otp_attempts').notNull().default(0),
  keyId: text('key_id'),
  claimedBy: text('claimed_by'),
  createdAt: ms('created_at').notNull(),
  expiresAt: ms('expires_at').notNull(),
  claimedAt: ms('claimed_at'),
  /** When a person refused the registration (sql/008_agent_denied.sql). */
  deniedAt: ms('denied_at'),
  /** The user who refused it (sql/009_agent_denied_by.sql); null once that account is deleted. */
  deniedBy: text('denied_by'),
});

export const agentCredentials = pgTable('agent_credentials', {
  keyId: text('key_id').primaryKey(),
  iss: text('iss').notNull(),
  sub: text('sub').notNull(),
  clientId: text('client_id'),
  createdAt: ms('created_at').notNull(),
});

export const agentJtis = pgTable(
  'agent_jtis',
  {
    purpose: text('purpose').$type<'assertion' | 'logout'>().notNull(),
    iss: text('iss').notNull(),
    jti: text('jti').notNull(),
    exp: ms('exp').notNull(),
    usedAt: ms('used_at').notNull(),
  },
  (t) => [agentPg.primaryKey({ columns: [t.purpose, t.iss, t.jti] })],
);

export const serverSecrets = pgTable('server_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: ms('created_at').notNull(),
});

export type AgentRegistrationRow = typeof agentRegistrations.$inferSelect;

// --- Usage and rate limits (sql/002_usage.sql) -------------------------------------------------
import * as usagePg from 'drizzle-orm/pg-core';

export const usageCounters = pgTable(
  'usage_counters',
  {
    userId: text('user_id').notNull(),
    periodStart: ms('period_start').notNull(),
    used: ms('used').notNull().default(0),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [usagePg.primaryKey({ columns: [t.userId, t.periodStart] })],
);

export const rateLimitCounters = pgTable('rate_limit_counters', {
  bucket: text('bucket').primaryKey(),
  windowStart: ms('window_start').notNull(),
  count: usagePg.integer('count').notNull(),
  expiresAt: ms('expires_at').notNull(),
});

// --- Teams, invites, shared endpoints, subscriptions (sql/004_teams.sql) ------------------------
import * as teamsPg from 'drizzle-orm/pg-core';

export const teams = pgTable('teams', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  ownerId: text('owner_id').notNull(),
  createdAt: ms('created_at').notNull(),
  /** sql/015_team_confirmed_members.sql: accepting an invite needs a proven address. */
  confirmedMembersOnly: boolean('confirmed_members_only').notNull().default(false),
});

export type TeamRole = 'owner' | 'member';

export const teamMembers = pgTable(
  'team_members',
  {
    teamId: text('team_id').notNull(),
    userId: text('user_id').notNull(),
    role: text('role').$type<TeamRole>().notNull(),
    joinedAt: ms('joined_at').notNull(),
  },
  (t) => [teamsPg.primaryKey({ columns: [t.teamId, t.userId] })],
);

export type InviteStatus = 'pending' | 'accepted' | 'declined' | 'revoked' | 'expired';

export const teamInvites = pgTable('team_invites', {
  id: text('id').primaryKey(),
  teamId: text('team_id').notNull(),
  email: text('email').notNull(),
  invitedBy: text('invited_by'),
  status: text('status').$type<InviteStatus>().notNull().default('pending'),
  createdAt: ms('created_at').notNull(),
  respondedAt: ms('responded_at'),
});

export const teamEndpoints = pgTable(
  'team_endpoints',
  {
    teamId: text('team_id').notNull(),
    endpointId: text('endpoint_id').notNull(),
    sharedBy: text('shared_by').notNull(),
    sharedAt: ms('shared_at').notNull(),
  },
  (t) => [teamsPg.primaryKey({ columns: [t.teamId, t.endpointId] })],
);

export const teamSubscriptions = pgTable('team_subscriptions', {
  teamId: text('team_id').primaryKey(),
  status: text('status').notNull(),
  seats: teamsPg.integer('seats').notNull(),
  source: text('source').$type<'stripe' | 'admin'>().notNull(),
  stripeSubscriptionId: text('stripe_subscription_id'),
  stripeCustomerId: text('stripe_customer_id'),
  currentPeriodEnd: ms('current_period_end'),
  lastEventAt: ms('last_event_at'),
  updatedAt: ms('updated_at').notNull(),
});

export const billingEvents = pgTable('billing_events', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  receivedAt: ms('received_at').notNull(),
});

export type TeamRow = typeof teams.$inferSelect;
export type TeamMemberRow = typeof teamMembers.$inferSelect;
export type TeamInviteRow = typeof teamInvites.$inferSelect;
export type TeamSubscriptionRow = typeof teamSubscriptions.$inferSelect;

// --- Pinned captures (sql/006_pins.sql) -----------------------------------------------------------

export const pinnedCaptures = pgTable('pinned_captures', {
  captureId: text('capture_id').primaryKey(),
  endpointId: text('endpoint_id').notNull(),
  accountId: text('account_id').notNull(),
  receivedAt: ms('received_at').notNull(),
  pinnedAt: ms('pinned_at').notNull(),
  /** The user who pinned it (sql/010_pinned_by.sql); null for pins made before it was kept. */
  pinnedBy: text('pinned_by'),
});

export type PinRow = typeof pinnedCaptures.$inferSelect;

// --- Password resets (sql/007_password_resets.sql) ------------------------------------------------

export const passwordResets = pgTable('password_resets', {
  userId: text('user_id').primaryKey(),
  tokenHash: text('token_hash').notNull(),
  createdAt: ms('created_at').notNull(),
  expiresAt: ms('expires_at').notNull(),
});

export type PasswordResetRow = typeof passwordResets.$inferSelect;

// --- Sign-up verification links (sql/013_email_verified.sql) -------------------------------------

export const emailVerifications = pgTable('email_verifications', {
  userId: text('user_id').primaryKey(),
  tokenHash: text('token_hash').notNull(),
  /** The address the link was made for: it proves that one only. */
  email: text('email').notNull(),
  createdAt: ms('created_at').notNull(),
  expiresAt: ms('expires_at').notNull(),
});

export type EmailVerificationRow = typeof emailVerifications.$inferSelect;
