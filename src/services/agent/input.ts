/**
 * Shapes of the agent request bodies, as TypeBox schemas checked here rather than by Elysia, so
 * that every refusal is an agent error code (SPEC 7.2) rather than the capture API's validation
 * message. What a schema cannot say (flows, aliases, the claim token's format) is code below it.
 */
import { t, type Static, type TSchema } from 'elysia';
import { isClaimTokenFormat } from '../../auth/agent/codes';
import { isWellFormedEmail } from '../../model/email';
import { AppError } from '../../errors';
import { checked } from '../../schema-problem';
import { hazardMessage, isRecord, jsonHazard } from '../../unknown';

export type RegisterJson =
  | { type: 'anonymous'; clientName: string }
  | { type: 'verified_email'; clientName: string; email: string };

const MAX_CLIENT_NAME = 100;
/** Agent bodies are flat objects; nothing legitimate nests deeper. */
const MAX_DEPTH = 8;

/** A JSON object from a request body, or invalid_request. */
export function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('invalid_request', 'body must be a JSON object');
  }
  if (!isRecord(value)) throw new AppError('invalid_request', 'body must be a JSON object');
  const hazard = jsonHazard(value, MAX_DEPTH);
  if (hazard) throw new AppError('invalid_request', hazardMessage(hazard, MAX_DEPTH));
  return value;
}

/** An optional text field; null reads as absent (a wrong type is `must be a string or null`). */
const OptionalText = t.Optional(t.Union([t.String(), t.Null()]));

/** The JSON form of `POST /api/agent/auth` (other fields are ignored). */
const RegisterBody = t.Object({
  type: OptionalText,
  identity_type: OptionalText,
  requested_credential_type: OptionalText,
  client_name: OptionalText,
});

const ClaimTokenBody = t.Object({ claim_token: t.Unknown({ error: 'is required' }) });

const ClaimRefBody = t.Object({ claim_token: OptionalText, user_code: OptionalText });

const OtpBody = t.Object({ otp: t.String({ pattern: '^[0-9]{6}$', error: 'must be a string of 6 digits' }) });

/** The body typed by its schema, or SPEC 7.2 `invalid_request` naming the first bad field. */
const agentBody = <S extends TSchema>(schema: S, body: Record<string, unknown>): Static<S> =>
  checked(schema, body, (problem) => new AppError('invalid_request', problem));

/** client_name is shown to the human who claims and in the email: one short, printable line. */
function clientName(raw: string | null | undefined): string {
  const name = raw?.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ').replace(/\s+/g, ' ').trim();
  if (!name) throw new AppError('invalid_request', 'client_name is required');
  if (name.length > MAX_CLIENT_NAME) throw new AppError('invalid_request', `client_name must be at most ${MAX_CLIENT_NAME} characters`);
  return name;
}

/**
 * The JSON form of `POST /api/agent/auth`. `type` selects the flow; `identity_type` is an alias.
 * An identity assertion is not sent as JSON but as the body with Content-Type application/jwt.
 */
export function parseRegisterJson(json: Record<string, unknown>): RegisterJson {
  const body = agentBody(RegisterBody, json);
  const type = body.type ?? undefined;
  const alias = body.identity_type ?? undefined;
  if (type !== undefined && alias !== undefined && type !== alias) {
    throw new AppError('invalid_request', 'type and identity_type disagree');
  }
  const flow = type ?? alias;
  if (flow === undefined) throw new AppError('invalid_request', 'type is required: anonymous, verified_email or identity_assertion');
  const credentialType = body.requested_credential_type ?? undefined;
  if (credentialType !== undefined && credentialType !== 'api_key') {
    throw new AppError('unsupported_credential_type', 'only api_key credentials are offered');
  }
  switch (flow) {
    case 'anonymous':
      return { type: 'anonymous', clientName: clientName(body.client_name) };
    case 'verified_email': {
      // Any non-address here, a number included, is SPEC 7.2 invalid_email rather than invalid_request.
      const email = typeof json.email === 'string' ? json.email.trim() : '';
      if (!isWellFormedEmail(email)) throw new AppError('invalid_email', 'email is missing or not a valid address');
      return { type: 'verified_email', clientName: clientName(body.client_name), email };
    }
    case 'identity_assertion':
      throw new AppError('invalid_request', 'send the assertion itself as the body, with Content-Type: application/jwt');
    default:
      throw new AppError('invalid_request', 'type must be anonymous, verified_email or identity_assertion');
  }
}

/** `{claim_token}` (poll, verify-otp), shape-checked before any lookup. */
export function claimTokenOf(json: Record<string, unknown>): string {
  const token = agentBody(ClaimTokenBody, json).claim_token;
  if (!isClaimTokenFormat(token)) throw new AppError('invalid_claim_token', 'claim_token is malformed');
  return token;
}

export type ClaimRef = { claimToken: string } | { userCode: string };

/** Claim confirm: exactly one of claim_token and user_code. */
export function parseClaimRef(json: Record<string, unknown>): ClaimRef {
  const body = agentBody(ClaimRefBody, json);
  const token = body.claim_token ?? undefined;
  const code = body.user_code ?? undefined;
  if ((token === undefined) === (code === undefined)) {
    throw new AppError('invalid_request', 'send exactly one of claim_token and user_code');
  }
  return token !== undefined ? { claimToken: token } : { userCode: code ?? '' };
}

/** The OTP of verify-otp: a string of exactly six digits. */
export function otpOf(json: Record<string, unknown>): string {
  return agentBody(OtpBody, json).otp;
}
