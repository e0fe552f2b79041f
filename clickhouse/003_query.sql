-- The query string exactly as sent (without "?"), so forwarding and exports re-send it byte for
-- byte (a provider that signs the full URL still verifies). Existing rows read '': captured before
-- it was kept, and readers rebuild their query from query_params.
--
-- 18.16 has no ADD COLUMN IF NOT EXISTS: the migration runner treats "column already exists" on an
-- ADD COLUMN statement as done, so this stays idempotent like every other statement here.
ALTER TABLE captures ADD COLUMN query String DEFAULT ''
