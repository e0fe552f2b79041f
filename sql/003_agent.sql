-- Agent registration (SPEC 4.8–4.9): registrations and their claim state, credentials issued on an
-- identity provider's word (for revocation by iss+sub), single-use token ids and
-- generated server secrets. Plain SQL for Postgres and PGlite alike. Times are ms since epoch.

-- One row per anonymous or verified-email registration. Secrets are stored only as hashes:
-- claim_token_hash is SHA-256 of the 256-bit claim token; user_code_hash and otp_hash are HMACs
-- keyed by the server secret, because 8-letter codes and 6-digit OTPs are too small to hash plainly.
CREATE TABLE agent_registrations (
  id                text PRIMARY KEY,                 -- uuid (registration_id)
  type              text NOT NULL CHECK (type IN ('anonymous', 'verified_email')),
  status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'claimed')),
  client_name       text NOT NULL,
  claim_token_hash  text NOT NULL UNIQUE,
  user_code_hash    text UNIQUE,                      -- anonymous only
  email             text,                             -- verified_email only
  otp_hash          text,                             -- verified_email only; cleared once used
  otp_attempts      integer NOT NULL DEFAULT 0,
  key_id            text REFERENCES api_keys (id) ON DELETE CASCADE,
  claimed_by        text REFERENCES users (id) ON DELETE CASCADE,
  created_at        bigint NOT NULL,
  expires_at        bigint NOT NULL,                  -- claim window (anonymous) or OTP window (email)
  claimed_at        bigint,
  CHECK (type <> 'anonymous' OR user_code_hash IS NOT NULL),
  CHECK (type <> 'verified_email' OR email IS NOT NULL)
);
-- Counting pending anonymous registrations (the temporarily_unavailable bound) stays an index scan.
CREATE INDEX agent_registrations_pending_idx ON agent_registrations (expires_at) WHERE status = 'pending' AND type = 'anonymous';
CREATE INDEX agent_registrations_key_idx ON agent_registrations (key_id);

-- Keys issued on an identity assertion: who vouched for them, so a logout token for (iss, sub)
-- revokes exactly these.
CREATE TABLE agent_credentials (
  key_id      text PRIMARY KEY REFERENCES api_keys (id) ON DELETE CASCADE,
  iss         text NOT NULL,
  sub         text NOT NULL,
  client_id   text,
  created_at  bigint NOT NULL
);
CREATE INDEX agent_credentials_subject_idx ON agent_credentials (iss, sub);

-- Every assertion and logout-token jti ever accepted, per purpose and issuer. Kept forever
-- (SPEC 4.8: replays are rejected permanently), so it survives restarts and is shared by nodes.
CREATE TABLE agent_jtis (
  purpose  text NOT NULL CHECK (purpose IN ('assertion', 'logout')),
  iss      text NOT NULL,
  jti      text NOT NULL,
  exp      bigint NOT NULL,                           -- seconds, as in the token
  used_at  bigint NOT NULL,
  PRIMARY KEY (purpose, iss, jti)
);

-- Secrets generated at first start when SERVER_SECRET is unset, shared by every node of one
-- database so an OTP hashed on one node verifies on another.
CREATE TABLE server_secrets (
  name        text PRIMARY KEY,
  value       text NOT NULL,
  created_at  bigint NOT NULL
);

-- The sweeper finds expired sandbox endpoints (unowned by any account) without a scan.
CREATE INDEX endpoints_sandbox_expiry_idx ON endpoints (expires_at) WHERE user_id IS NULL;
