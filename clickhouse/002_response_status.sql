-- The HTTP status each sender was answered (the endpoint's mock response, or 200), so exports can
-- show the response a capture got. Existing rows read 0: captured before this was recorded.
--
-- 18.16 has no ADD COLUMN IF NOT EXISTS: the migration runner treats "column already exists" on an
-- ADD COLUMN statement as done, so this stays idempotent like every other statement here.
ALTER TABLE captures ADD COLUMN response_status UInt16 DEFAULT 0
