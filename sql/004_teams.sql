-- Teams (SPEC 4.5, 4.6): teams, their members, invites by email, endpoints shared with a team, and
-- the team's Teams subscription (Stripe or set by an operator). Plain SQL for Postgres and PGlite.
-- Times are ms since epoch (bigint); the API renders team and invite times as ISO 8601.

CREATE TABLE teams (
  id          text PRIMARY KEY,                       -- team_…
  name        text NOT NULL,
  owner_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at  bigint NOT NULL
);
CREATE INDEX teams_owner_idx ON teams (owner_id);

-- Every person in a team, the owner included (role 'owner'), so "teams I belong to" and "who may
-- read through this team" are one lookup each. Deleting a team or an account removes its rows.
CREATE TABLE team_members (
  team_id    text NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role       text NOT NULL CHECK (role IN ('owner', 'member')),
  joined_at  bigint NOT NULL,
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user_idx ON team_members (user_id);
-- At most one owner row per team.
CREATE UNIQUE INDEX team_members_one_owner ON team_members (team_id) WHERE role = 'owner';

-- Invites are addressed to an email, not an account, so someone without an account yet sees the
-- invite once they sign up with that address. A used invite keeps its row with its final status,
-- so a second accept is refused instead of looking like an unknown id.
CREATE TABLE team_invites (
  id            text PRIMARY KEY,                     -- inv_…
  team_id       text NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  email         text NOT NULL,
  invited_by    text REFERENCES users (id) ON DELETE SET NULL,
  status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'declined', 'revoked')),
  created_at    bigint NOT NULL,
  responded_at  bigint
);
-- One pending invite per address per team (a second one is a 409, also under a race).
CREATE UNIQUE INDEX team_invites_pending_key ON team_invites (team_id, lower(email)) WHERE status = 'pending';
CREATE INDEX team_invites_email_idx ON team_invites (lower(email)) WHERE status = 'pending';

-- Endpoints shared with a team. Removed with the team, the endpoint, or the member who shared it
-- (on leave or removal the service deletes that member's shares in the same transaction).
CREATE TABLE team_endpoints (
  team_id      text NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  endpoint_id  text NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
  shared_by    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  shared_at    bigint NOT NULL,
  PRIMARY KEY (team_id, endpoint_id)
);
CREATE INDEX team_endpoints_endpoint_idx ON team_endpoints (endpoint_id);

-- The team's Teams subscription. status uses Stripe's words (active, trialing, past_due, canceled,
-- unpaid, incomplete, incomplete_expired, paused); only active and trialing count as active.
-- last_event_at is the `created` time (s) of the last Stripe event applied, so an older event that
-- arrives late never overwrites a newer state.
CREATE TABLE team_subscriptions (
  team_id                 text PRIMARY KEY REFERENCES teams (id) ON DELETE CASCADE,
  status                  text NOT NULL,
  seats                   integer NOT NULL CHECK (seats >= 0),
  source                  text NOT NULL CHECK (source IN ('stripe', 'admin')),
  stripe_subscription_id  text,
  stripe_customer_id      text,
  current_period_end      bigint,
  last_event_at           bigint,
  updated_at              bigint NOT NULL
);

-- Stripe event ids already applied: Stripe delivers at least once, each event takes effect once.
CREATE TABLE billing_events (
  id           text PRIMARY KEY,                      -- evt_…
  type         text NOT NULL,
  received_at  bigint NOT NULL
);
