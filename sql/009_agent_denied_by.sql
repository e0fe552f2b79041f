-- Who refused an anonymous registration (docs/agents.md, "Deny"): the signed-in user whose session
-- posted the deny. SET NULL, not CASCADE: deleting that user's account must not delete the record
-- that the registration was refused (its key stays revoked either way).
ALTER TABLE agent_registrations ADD COLUMN denied_by text REFERENCES users (id) ON DELETE SET NULL;
