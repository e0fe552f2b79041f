-- Signed notifications (docs/notifications.md, "Signatures"): an endpoint's Standard Webhooks
-- secret for the notifications it sends, {secret: "whsec_…", createdAt: ms}, or NULL (unsigned).
-- Kept as the inbound `signing` secrets are (the server must hold the key to sign); the API
-- returns the secret once, when it is made, and only createdAt afterwards.
ALTER TABLE endpoints ADD COLUMN notification_signing jsonb;
