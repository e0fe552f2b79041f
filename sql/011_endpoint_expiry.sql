-- Self-expiring endpoints (docs/api.md, `expiresIn` on POST /api/endpoints): an account's endpoint
-- may now carry expires_at too, and the sweeper that deleted expired sandbox endpoints deletes
-- every expired endpoint. This index finds them without a scan; the sandbox index stays for the
-- per-key sandbox queries.
CREATE INDEX endpoints_expiry_idx ON endpoints (expires_at) WHERE expires_at IS NOT NULL;
