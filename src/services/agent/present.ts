/** Wire shapes of registrations (SPEC 2.11, 4.8): snake_case, ISO 8601 expiry, nothing secret. */
import type { AgentRegistrationRow } from '../../stores/state/schema';

/** SPEC 4.8 names the email flow `email-verification` on the wire. */
export function registrationType(type: AgentRegistrationRow['type']): 'anonymous' | 'email-verification' {
  return type === 'anonymous' ? 'anonymous' : 'email-verification';
}

export const isoTime = (ms: number): string => new Date(ms).toISOString();

export const claimPageUrl = (baseUrl: string, claimToken: string): string =>
  `${baseUrl}/agent/claim?token=${encodeURIComponent(claimToken)}`;

export const verifyOtpUrl = (baseUrl: string): string => `${baseUrl}/api/agent/auth/claim/verify-otp`;
