-- A team owner's opt-in (docs/teams.md, "Only members with a confirmed address"): while true, an
-- invite is accepted only by an account whose address is proven (users.email_verified_at, see
-- sql/013_email_verified.sql). Off by default, and for every team made before it: SPEC 4.6 lets any
-- signed-in addressee accept. Turning it on is refused while a member's address is unproven, so
-- existing teams keep their members as they are.
ALTER TABLE teams ADD COLUMN confirmed_members_only boolean NOT NULL DEFAULT false;
