-- A person shown the claim page may refuse an anonymous registration (docs/agents.md): the
-- registration becomes 'denied' (final), its unowned key is revoked and its sandbox endpoints end.
-- denied_at says when, for the agent's poll.
ALTER TABLE agent_registrations DROP CONSTRAINT agent_registrations_status_check;
ALTER TABLE agent_registrations ADD CONSTRAINT agent_registrations_status_check
  CHECK (status IN ('pending', 'claimed', 'denied'));
ALTER TABLE agent_registrations ADD COLUMN denied_at bigint;
