-- Pinned captures (docs/retention.md): a pinned capture is kept past its plan's retention. The
-- captures themselves are in the capture store; this is the small set that retention must skip,
-- and what marks a record `pinned: true`. account_id is the endpoint owner's account, whose cap
-- (PIN_LIMIT) the pin counts against. received_at lets ClickHouse retention see which weekly
-- partitions hold a pin without reading them.
CREATE TABLE IF NOT EXISTS pinned_captures (
  capture_id text PRIMARY KEY,
  endpoint_id text NOT NULL,
  account_id text NOT NULL,
  received_at bigint NOT NULL,
  pinned_at bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS pinned_captures_account ON pinned_captures (account_id);
CREATE INDEX IF NOT EXISTS pinned_captures_endpoint ON pinned_captures (endpoint_id, received_at);
