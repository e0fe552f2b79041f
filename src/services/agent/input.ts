/**
 * Shapes of the agent request bodies, checked by hand so that every refusal is an agent error code
 * (SPEC 7.2) rather than the capture API's validation message.
 */
import { isClaimTokenFormat } from '../../auth/agent/codes';
import { isWellFormedEmail } from '../../model/email';
import { AppError } from '../../errors';
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

function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new AppError('invalid_request', `${name} must be a string`);
  return v;
}

/** client_name is shown to the human who claims and in the email: one short, printable line. */
function clientName(body: Record<string, unknown>): string {
  const raw = optionalString(body, 'client_name');
  const name = raw?.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ').replace(/\s+/g, ' ').trim();
  if (!name) throw new AppError('invalid_request', 'client_name is required');
  if (name.length > MAX_CLIENT_NAME) throw new AppError('invalid_request', `client_name must be at most ${MAX_CLIENT_NAME} characters`);
  return name;
}

/**
 * The JSON form of `POST /api/agent/auth`. `type` selects the flow; `identity_type` is an alias.
 * An identity assertion is not sent as JSON but as the body with Content-Type application/jwt.
 */
export function parseRegisterJson(body: Record<string, unknown>): RegisterJson {
  const type = optionalString(body, 'type');
  const alias = optionalString(body, 'identity_type');
  if (type !== undefined && alias !== undefined && type !== alias) {
    throw new AppError('invalid_request', 'type and identity_type disagree');
  }
  const flow = type ?? alias;
  if (flow === undefined) throw new AppError('invalid_request', 'type is required: anonymous, verified_email or identity_assertion');
  const credentialType = optionalString(body, 'requested_credential_type');
  if (credentialType !== undefined && credentialType !== 'api_key') {
    throw new AppError('unsupported_credential_type', 'only api_key credentials are offered');
  }
  switch (flow) {
    case 'anonymous':
      return { type: 'anonymous', clientName: clientName(body) };
    case 'verified_email': {
      const email = typeof body.email === 'string' ? body.email.trim() : '';
      if (!isWellFormedEmail(email)) throw new AppError('invalid_email', 'email is missing or not a valid address');
      return { type: 'verified_email', clientName: clientName(body), email };
    }
    case 'identity_assertion':
      throw new AppError('invalid_request', 'send the assertion itself as the body, with Content-Type: application/jwt');
    default:
      throw new AppError('invalid_request', 'type must be anonymous, verified_email or identity_assertion');
  }
}

/** `{claim_token}` (poll, verify-otp), shape-checked before any lookup. */
export function claimTokenOf(body: Record<string, unknown>): string {
  const token = body.claim_token;
  if (token === undefined) throw new AppError('invalid_request', 'claim_token is required');
  if (!isClaimTokenFormat(token)) throw new AppError('invalid_claim_token', 'claim_token is malformed');
  return token;
}

export type ClaimRef = { claimToken: string } | { userCode: string };

/** Claim confirm: exactly one of claim_token and user_code. */
export function parseClaimRef(body: Record<string, unknown>): ClaimRef {
  const token = optionalString(body, 'claim_token');
  const code = optionalString(body, 'user_code');
  if ((token === undefined) === (code === undefined)) {
    throw new AppError('invalid_request', 'send exactly one of claim_token and user_code');
  }
  return token !== undefined ? { claimToken: token } : { userCode: code ?? '' };
}

/** The OTP of verify-otp: a string of exactly six digits. */
export function otpOf(body: Record<string, unknown>): string {
  const otp = body.otp;
  if (typeof otp !== 'string' || !/^[0-9]{6}$/.test(otp)) throw new AppError('invalid_request', 'otp must be a string of 6 digits');
  return otp;
}
