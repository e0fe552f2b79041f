-- Whether an account's address was ever proven (docs/security.md, "Proving the address"): the time
-- of the first proof (a password reset confirmed, an agent's verified email or identity assertion,
-- a sign-up verification link), null while never proven. Sign-up alone does not prove it.
-- An account without a password was provisioned by an agent flow from a proven address (sign-up
-- always sets one, and only a reset, itself a proof, sets one later): those count as proven since
-- they were made. Accounts with a password made before this column existed stay unproven: whether
-- a reset ever proved them was not kept.
ALTER TABLE users ADD COLUMN IF NOT EXISTS email_verified_at bigint;
UPDATE users SET email_verified_at = created_at WHERE password_hash IS NULL AND email_verified_at IS NULL;
