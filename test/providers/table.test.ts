import { describe, expect, test } from 'bun:test';
import { compile, detect } from '../../src/engine/providers/engine';
import { PROVIDERS } from '../../src/engine/providers/rules';

describe('provider table', () => {
  test('compiles', () => {
    const index = compile(PROVIDERS);
    expect(index.byHeader.size).toBeGreaterThan(40);
    expect(index.jsonGate).not.toBeNull();
    expect(index.formGate).not.toBeNull();
  });

  test('rejects upper-case header anchors', () => {
    expect(() => compile([{ id: 'x', fingerprints: [{ on: [{ header: 'X-Thing' }], event: [] }] }])).toThrow(/lower case/);
  });

  test('rejects duplicate ids, empty entries and stateful patterns', () => {
    const fp = { on: [{ header: 'x-a' }], event: [] };
    expect(() => compile([{ id: 'a', fingerprints: [fp] }, { id: 'a', fingerprints: [fp] }])).toThrow(/twice/);
    expect(() => compile([{ id: 'a', fingerprints: [] }])).toThrow(/no fingerprint/);
    expect(() => compile([{ id: 'a', fingerprints: [{ on: [], event: [] }] }])).toThrow(/no anchor/);
    expect(() =>
      compile([{ id: 'a', fingerprints: [{ on: [{ header: 'x-a' }], when: [{ header: 'x-a', pattern: /a/g }], event: [] }] }]),
    ).toThrow(/stateful/);
  });

  test('earlier entries win when several are triggered', () => {
    const index = compile([
      { id: 'specific', fingerprints: [{ on: [{ header: 'x-b' }], event: [{ parts: [{ literal: 'one' }] }] }] },
      { id: 'generic', fingerprints: [{ on: [{ header: 'x-a' }], event: [{ parts: [{ literal: 'two' }] }] }] },
    ]);
    const input = { headers: { 'x-a': '1', 'x-b': '1' }, body: '', contentType: '', method: 'POST', query: {} };
    expect(detect(index, input)).toEqual({ provider: 'specific', event: 'one' });
  });

  test('a fingerprint anchored on two present headers is evaluated once', () => {
    let evaluations = 0;
    const counting = /^yes$/;
    const original = counting.test.bind(counting);
    counting.test = (s: string) => {
      evaluations += 1;
      return original(s);
    };
    const index = compile([
      { id: 'p', fingerprints: [{ on: [{ header: 'x-a' }, { header: 'x-b' }], when: [{ header: 'x-c', pattern: counting }], event: [] }] },
    ]);
    detect(index, { headers: { 'x-a': '1', 'x-b': '1', 'x-c': 'no' }, body: '', contentType: '', method: 'POST', query: {} });
    expect(evaluations).toBe(1);
  });
});
