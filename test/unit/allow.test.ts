import { describe, expect, test } from 'bun:test';
import { loadConfig } from '../../src/config';
import { AllowList, parseAllowEntry } from '../../src/net/allow';

describe('allow list entries', () => {
  test('names, IPs, ports and CIDR blocks parse', () => {
    expect(parseAllowEntry('hooks.internal')).toEqual({ kind: 'name', name: 'hooks.internal', port: null });
    expect(parseAllowEntry('Hooks.Internal.:8080')).toEqual({ kind: 'name', name: 'hooks.internal', port: 8080 });
    expect(parseAllowEntry('127.0.0.1:9000')).toMatchObject({ kind: 'ip', port: 9000 });
    expect(parseAllowEntry('[::1]:9000')).toMatchObject({ kind: 'ip', ip: { family: 6, value: 1n }, port: 9000 });
    expect(parseAllowEntry('::1')).toMatchObject({ kind: 'ip', port: null });
    expect(parseAllowEntry('10.0.0.0/8')).toMatchObject({ kind: 'cidr', bits: 8 });
    expect(parseAllowEntry('fd00::/8')).toMatchObject({ kind: 'cidr', bits: 8 });
  });

  test('malformed entries are refused with the entry named', () => {
    for (const bad of ['host:0', 'host:65536', 'host:http', '10.0.0.0/33', 'nothost/8', '[example.com]:80', 'bad host', 'a..b', '-x.com', '::1/129']) {
      expect(() => parseAllowEntry(bad)).toThrow(bad);
    }
  });

  test('a bad OUTBOUND_ALLOW stops config loading and names the variable', () => {
    expect(() => loadConfig({ OUTBOUND_ALLOW: 'ok.internal,bad host' })).toThrow('OUTBOUND_ALLOW');
    const parsed = loadConfig({ OUTBOUND_ALLOW: ' a.internal , 127.0.0.1:80 ' }).outboundAllow;
    expect(parsed.size).toBe(2);
    expect(parsed.allows('a.internal', 443, '10.0.0.1')).toBe(true);
    expect(parsed.allows('localhost', 80, '127.0.0.1')).toBe(true);
    expect(parsed.allows('localhost', 81, '127.0.0.1')).toBe(false);
  });
});

describe('matching', () => {
  const allow = AllowList.parse(['hooks.internal', 'api.internal:8443', '127.0.0.1:9000', '[::1]:9001', '10.20.0.0/16', 'fd00:aa::/32']);

  test('a listed name allows whatever it resolves to, on any port unless one is given', () => {
    expect(allow.allows('hooks.internal', 80, '10.0.0.5')).toBe(true);
    expect(allow.allows('HOOKS.internal.', 1234, '127.0.0.1')).toBe(true);
    expect(allow.allows('api.internal', 8443, '10.0.0.6')).toBe(true);
    expect(allow.allows('api.internal', 443, '10.0.0.6')).toBe(false);
    expect(allow.allows('other.internal', 80, '10.0.0.5')).toBe(false);
  });

  test('a listed IP matches the resolved address, whatever name led there', () => {
    expect(allow.allows('127.0.0.1', 9000, '127.0.0.1')).toBe(true);
    expect(allow.allows('localhost', 9000, '127.0.0.1')).toBe(true);
    expect(allow.allows('127.0.0.1', 9002, '127.0.0.1')).toBe(false);
    expect(allow.allows('[::1]', 9001, '::1')).toBe(true);
    expect(allow.allows('[::1]', 9000, '::1')).toBe(false);
    expect(allow.allows('127.0.0.2', 9000, '127.0.0.2')).toBe(false);
  });

  test('CIDR blocks match addresses of their family on any port', () => {
    expect(allow.allows('x', 1, '10.20.255.1')).toBe(true);
    expect(allow.allows('x', 1, '10.21.0.1')).toBe(false);
    expect(allow.allows('x', 1, 'fd00:aa:1::1')).toBe(true);
    expect(allow.allows('x', 1, 'fd00:ab::1')).toBe(false);
  });

  test('the empty list allows nothing; with() adds entries without changing the original', () => {
    expect(AllowList.none.allows('localhost', 80, '127.0.0.1')).toBe(false);
    const more = AllowList.none.with(['127.0.0.1:80']);
    expect(more.allows('localhost', 80, '127.0.0.1')).toBe(true);
    expect(AllowList.none.size).toBe(0);
  });
});
