import { describe, expect, test } from 'bun:test';
import { claimTokenOf, otpOf, parseClaimRef, parseJsonObject, parseRegisterJson } from '../../src/services/agent/input';
import { expectCode } from '../support/idp';

const sync = (fn: () => unknown) => Promise.resolve().then(fn);

describe('parseRegisterJson', () => {
  test('anonymous and verified_email, with the identity_type alias', () => {
    expect(parseRegisterJson({ type: 'anonymous', client_name: ' bot ', requested_credential_type: 'api_key' })).toEqual({ type: 'anonymous', clientName: 'bot' });
    expect(parseRegisterJson({ identity_type: 'anonymous', client_name: 'bot' })).toEqual({ type: 'anonymous', clientName: 'bot' });
    expect(parseRegisterJson({ type: 'verified_email', email: ' ada@example.com ', client_name: 'bot' })).toEqual({
      type: 'verified_email',
      clientName: 'bot',
      email: 'ada@example.com',
    });
  });

  test('client_name becomes one printable line', () => {
    expect(parseRegisterJson({ type: 'anonymous', client_name: 'a\nb\u0000c\u202ed\t e' })).toEqual({ type: 'anonymous', clientName: 'a b c d e' });
  });

  test('refusals carry the SPEC 7.2 code', async () => {
    await expectCode(sync(() => parseRegisterJson({})), 'invalid_request');
    await expectCode(sync(() => parseRegisterJson({ type: 'anonymous', identity_type: 'verified_email', client_name: 'x' })), 'invalid_request');
    await expectCode(sync(() => parseRegisterJson({ type: 'anonymous', client_name: 'x', requested_credential_type: 'oauth' })), 'unsupported_credential_type');
    await expectCode(sync(() => parseRegisterJson({ type: 'verified_email', client_name: 'x', email: 'nope' })), 'invalid_email');
    await expectCode(sync(() => parseRegisterJson({ type: 'verified_email', client_name: 'x' })), 'invalid_email');
    await expectCode(sync(() => parseRegisterJson({ type: 'identity_assertion', client_name: 'x' })), 'invalid_request');
    await expectCode(sync(() => parseRegisterJson({ type: 'anonymous', client_name: 7 })), 'invalid_request');
    await expectCode(sync(() => parseRegisterJson({ type: 'anonymous', client_name: '\u0000\u0001' })), 'invalid_request');
  });
});

describe('other agent bodies', () => {
  test('parseJsonObject wants a JSON object', async () => {
    expect(parseJsonObject('{"a":1}')).toEqual({ a: 1 });
    for (const text of ['', '[]', 'null', '"x"', '{']) await expectCode(sync(() => parseJsonObject(text)), 'invalid_request');
  });

  test('claim token, claim reference and OTP shapes', async () => {
    const token = `clm_${'a'.repeat(43)}`;
    expect(claimTokenOf({ claim_token: token })).toBe(token);
    await expectCode(sync(() => claimTokenOf({})), 'invalid_request');
    await expectCode(sync(() => claimTokenOf({ claim_token: 'clm_short' })), 'invalid_claim_token');
    expect(parseClaimRef({ user_code: 'bcdf-ghjk' })).toEqual({ userCode: 'bcdf-ghjk' });
    expect(parseClaimRef({ claim_token: token })).toEqual({ claimToken: token });
    await expectCode(sync(() => parseClaimRef({ claim_token: token, user_code: 'x' })), 'invalid_request');
    await expectCode(sync(() => parseClaimRef({})), 'invalid_request');
    expect(otpOf({ otp: '012345' })).toBe('012345');
    for (const otp of ['12345', '1234567', ' 123456', 123456, '12345a']) await expectCode(sync(() => otpOf({ otp })), 'invalid_request');
  });
});
