-- Accounts, sessions, API keys and capture endpoints. Times are ms since epoch (bigint) so they map
-- 1:1 to the API's integer timestamps.

CREATE TABLE users (
  id            text PRIMARY KEY,
  email         text NOT NULL,
  password_hash text,
  plan          text NOT NULL DEFAULT 'free',
  created_at    bigint NOT NULL
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE sessions (
  token_hash  text PRIMARY KEY,
  user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at  bigint NOT NULL,
  expires_at  bigint NOT NULL
);
CREATE INDEX sessions_user_idx ON sessions (user_id);

-- user_id is null for an unclaimed anonymous agent key (sandbox only).
CREATE TABLE api_keys (
  id           text PRIMARY KEY,
  user_id      text REFERENCES users (id) ON DELETE CASCADE,
  key_hash     text NOT NULL UNIQUE,
  prefix       text NOT NULL,
  name         text NOT NULL,
  scopes       text[] NOT NULL DEFAULT ARRAY['webhooks:read', 'webhooks:write'],
  created_at   bigint NOT NULL,
  revoked_at   bigint
);
CREATE INDEX api_keys_user_idx ON api_keys (user_id);

-- owner_key_id is set for sandbox endpoints of an unclaimed key; expires_at bounds their life.
CREATE TABLE endpoints (
  id                text PRIMARY KEY,
  slug              text NOT NULL UNIQUE,
  name              text NOT NULL,
  user_id           text REFERENCES users (id) ON DELETE CASCADE,
  owner_key_id      text REFERENCES api_keys (id) ON DELETE CASCADE,
  mock_response     jsonb,
  notification_url  text,
  signing           jsonb,
  cleared_at        bigint NOT NULL DEFAULT 0,
  expires_at        bigint,
  created_at        bigint NOT NULL,
  CHECK (user_id IS NOT NULL OR owner_key_id IS NOT NULL)
);
CREATE INDEX endpoints_user_idx ON endpoints (user_id, created_at);
CREATE INDEX endpoints_owner_key_idx ON endpoints (owner_key_id);

-- Captures of deleted endpoints still to be removed from the capture store (purged in the
-- background, so deleting an endpoint or an account never waits on ClickHouse).
CREATE TABLE capture_purges (
  endpoint_id  text PRIMARY KEY,
  queued_at    bigint NOT NULL
);
