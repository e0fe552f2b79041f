-- Invites expire INVITE_TTL_DAYS after they were made. Expiry is computed from created_at in every
-- query, so changing the setting applies to invites already sent and no sweeper is needed. The row
-- of an expired invite keeps status 'pending' until the same address is invited to the same team
-- again: that invite closes it as 'expired', which frees the one-pending-invite-per-address index.
ALTER TABLE team_invites DROP CONSTRAINT team_invites_status_check;
ALTER TABLE team_invites ADD CONSTRAINT team_invites_status_check
  CHECK (status IN ('pending', 'accepted', 'declined', 'revoked', 'expired'));
