-- Who pinned a capture (docs/retention.md, "Pinning"): a team member may pin a capture of an endpoint
-- shared with them, but only the endpoint's owner (account_id) or whoever pinned it may unpin it, so a
-- reader cannot take the owner's pins away and expose those captures to retention. Pins made before
-- this column existed have no pinned_by: only the owner can unpin them.
ALTER TABLE pinned_captures ADD COLUMN pinned_by text;
