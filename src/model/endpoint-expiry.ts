/**
 * Bounds of an endpoint's `expiresIn` (seconds), on POST and PATCH /api/endpoints and in the CLI's
 * `endpoints create --expires`. A minute is the least a CI job needs between creating an endpoint
 * and its webhook arriving; 30 days is as long as a forgotten endpoint should outlive the run that
 * made it (longer: create it without an expiry, and delete it when done).
 */
export const EXPIRES_IN_MIN_S = 60;
export const EXPIRES_IN_MAX_S = 30 * 24 * 3600;
