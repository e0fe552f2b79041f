/**
 * The rule a new password must meet (sign-up, reset and change alike): checked by the server
 * (src/services/auth.ts) and said by the dashboard's forms before they send, from this one value.
 */
export const MIN_PASSWORD_LENGTH = 8;
