import { describe, test } from 'bun:test';
import { assertFirstUse, createMemoryJtiStore } from '../../src/auth/agent/replay';
import { expectCode } from '../support/idp';

describe('assertFirstUse', () => {
  const token = { iss: 'https://idp.example', jti: 'j-1', exp: 1_760_000_300 };

  test('first use passes, a replay is replay_detected', async () => {
    const store = createMemoryJtiStore();
    await assertFirstUse(store, 'assertion', token);
    await expectCode(assertFirstUse(store, 'assertion', token), 'replay_detected');
    await expectCode(assertFirstUse(store, 'assertion', { ...token, exp: token.exp + 999 }), 'replay_detected');
  });

  test('jti is scoped by purpose and issuer', async () => {
    const store = createMemoryJtiStore();
    await assertFirstUse(store, 'assertion', token);
    await assertFirstUse(store, 'logout', token);
    await assertFirstUse(store, 'assertion', { ...token, iss: 'https://other.example' });
    await expectCode(assertFirstUse(store, 'logout', token), 'replay_detected');
  });
});
