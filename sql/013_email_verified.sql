-- Whether an account's address was ever proven (docs/security.md, "Proving the address"): the time
-- of the first proof (a password reset confirmed, an agent's verified email or identity assertion,
-- a sign-up verification link), null while never proven. Sign-up alone does not prove it.
-- An account without a password was provisioned by an agent flow from a proven address (sign-up
-- always sets one, and only a reset, itself a proof, sets one later): those count as proven since
-- they were made. Accounts with a password made before this column existed stay unproven: whether
-- a reset ever proved them was not kept.
ALTER TABLE users ADD COLUMN IF NOT EXISTS email_verified_at bigint;
UPDATE users SET email_verified_at = created_at WHERE password_hash IS NULL AND email_verified_at IS NULL;

-- The sign-up verification link (docs/security.md, "Proving the address"): at most one outstanding
-- per account (a resend replaces it), made for the address the account had then (`email`: the
-- link proves that address only). Only the token's HMAC-SHA256 (keyed by the server secret) is
-- stored; a use deletes the row in the transaction that marks the address proven.
CREATE TABLE IF NOT EXISTS email_verifications (
  user_id     text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  token_hash  text NOT NULL UNIQUE,
  email       text NOT NULL,
  created_at  bigint NOT NULL,
  expires_at  bigint NOT NULL
);
