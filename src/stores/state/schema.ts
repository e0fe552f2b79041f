/**
 * Drizzle description of the tables created by sql/*.sql. The SQL files are the truth (they run
 * on Postgres and PGlite alike); this file only types the queries.
 */
import { bigint, jsonb, pgTable, text } from 'drizzle-orm/pg-core';

const ms = (name: string) => bigint(name, { mode: 'number' });

export const users = pgTable('users', {
  id: text('id').primaryKey(),
  email: text('email').notNull(),
  passwordHash: text('password_hash'),
  plan: text('plan').notNull().default('free'),
  createdAt: ms('created_at').notNull(),
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
  scopes: text('scopes').array().notNull(),
  createdAt: ms('created_at').notNull(),
  revokedAt: ms('revoked_at'),
});

export interface MockResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export const endpoints = pgTable('endpoints', {
  id: text('id').primaryKey(),
  slug: text('slug').notNull(),
  name: text('name').notNull(),
  userId: text('user_id'),
  ownerKeyId: text('owner_key_id'),
  mockResponse: jsonb('mock_response').$type<MockResponse | null>(),
  notificationUrl: text('notification_url'),
  signing: jsonb('signing').$type<Record<string, unknown> | null>(),
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
