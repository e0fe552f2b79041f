-- Password reset (docs/security.md, "Password reset"): at most one outstanding reset per account,
-- so a newer request replaces (invalidates) the older token. The token itself is never stored,
-- only its HMAC-SHA256 keyed by the server secret (SERVER_SECRET or the generated one). A use
-- deletes the row in the same transaction that sets the password, so a token works once.
-- Rows of expired tokens stay until the account asks again or is deleted: one per account at most.
CREATE TABLE IF NOT EXISTS password_resets (
  user_id     text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  token_hash  text NOT NULL UNIQUE,
  created_at  bigint NOT NULL,
  expires_at  bigint NOT NULL
);
