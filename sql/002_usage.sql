-- Monthly usage per account, and request-rate counters shared by every node.

-- One row per account per period (calendar month, UTC; period_start = ms of its first instant).
-- Receiver nodes add their batched deltas (used = used + delta), never one write per capture.
CREATE TABLE usage_counters (
  user_id       text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  period_start  bigint NOT NULL,
  used          bigint NOT NULL DEFAULT 0,
  updated_at    bigint NOT NULL,
  PRIMARY KEY (user_id, period_start)
);

-- One row per limited subject (e.g. 'api:cred:<sha256>', 'auth:ip:203.0.113.7'): a fixed window
-- and its count. One upsert per limited request; rows past expires_at are swept.
CREATE TABLE rate_limit_counters (
  bucket        text PRIMARY KEY,
  window_start  bigint NOT NULL,
  count         integer NOT NULL,
  expires_at    bigint NOT NULL
);
CREATE INDEX rate_limit_counters_expires_idx ON rate_limit_counters (expires_at);
