-- A pin counts against the account that made it (pinned_by), no longer against the endpoint's owner
-- (docs/retention.md, "Pinning"): a team member pinning captures of a shared endpoint could otherwise
-- fill the owner's PIN_LIMIT. Pins made before pinned_by existed are the owner's, as they counted.
UPDATE pinned_captures SET pinned_by = account_id WHERE pinned_by IS NULL;
CREATE INDEX IF NOT EXISTS pinned_captures_pinned_by ON pinned_captures (pinned_by);
