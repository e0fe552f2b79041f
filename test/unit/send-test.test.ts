import { describe, expect, test } from 'bun:test';
import { loadConfig } from '../../src/config';
import { prepareTestRequest, receiverTarget, SEND_TEST_DEFAULTS } from '../../src/services/send-test';
import { refusal } from '../support/refusal';

describe('send-test request', () => {
  test('defaults: POST, a JSON test body, its content type and our user agent', () => {
    expect(prepareTestRequest({ slug: 's' }, 1024)).toEqual({
      method: 'POST',
      body: SEND_TEST_DEFAULTS.body,
      headers: { 'content-type': 'application/json', 'user-agent': 'hookcap-send-test/1' },
    });
  });

  test("the caller's method, headers and body win; header names are lower-cased", () => {
    const r = prepareTestRequest({ slug: 's', method: 'put', headers: { 'X-Thing': 'v', 'User-Agent': 'Stripe/1.0' }, body: 'a=b' }, 1024);
    expect(r).toEqual({ method: 'PUT', body: 'a=b', headers: { 'x-thing': 'v', 'user-agent': 'Stripe/1.0', 'content-type': 'text/plain; charset=utf-8' } });
    expect(prepareTestRequest({ slug: 's', headers: { 'Content-Type': 'application/xml' }, body: '<a/>' }, 1024).headers['content-type']).toBe('application/xml');
    expect(prepareTestRequest({ slug: 's', body: '' }, 1024)).toEqual({ method: 'POST', body: '', headers: { 'user-agent': 'hookcap-send-test/1' } });
  });

  test('header values are text, prepared as their UTF-8 bytes one character per byte (what the outbound client writes)', () => {
    const r = prepareTestRequest({ slug: 's', headers: { 'x-e': 'é', 'x-t': 'a ✓\tb' } }, 1024);
    expect(r.headers['x-e']).toBe('\u00c3\u00a9');
    expect(r.headers['x-t']).toBe(Buffer.from('a ✓\tb', 'utf8').toString('latin1'));
    for (const v of ['a\u007fb', 'a\u001bb']) expect(refusal(() => prepareTestRequest({ slug: 's', headers: { 'x-a': v } }, 1024)).message).toBe('headers["x-a"] cannot hold line breaks or control characters');
  });

  test('GET and HEAD go without a body', () => {
    expect(prepareTestRequest({ slug: 's', method: 'GET' }, 1024).body).toBeUndefined();
    expect(refusal(() => prepareTestRequest({ slug: 's', method: 'HEAD', body: 'x' }, 1024)).code).toBe('validation');
  });

  test('bad methods, headers and oversized bodies are refused', () => {
    for (const method of ['GE T', 'POST\r\n', 'CONNECT', 'trace', '']) {
      expect(refusal(() => prepareTestRequest({ slug: 's', method }, 1024)).code).toBe('validation');
    }
    const badHeaders: Record<string, string>[] = [{ 'bad name': 'x' }, { 'x-a': 'line\r\nbreak' }, { 'x-a': 'nul\0' }, { Host: 'evil.example' }, { 'Content-Length': '1' }, { 'transfer-encoding': 'chunked' }];
    for (const headers of badHeaders) {
      expect(refusal(() => prepareTestRequest({ slug: 's', headers }, 1024)).code).toBe('validation');
    }
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`x-h${i}`, 'v']));
    expect(refusal(() => prepareTestRequest({ slug: 's', headers: many }, 1024)).code).toBe('validation');
    expect(refusal(() => prepareTestRequest({ slug: 's', body: 'é'.repeat(513) }, 1024)).code).toBe('payload_too_large');
  });
});

describe('receiver target', () => {
  test('a receiver node sends to itself over loopback, on the port the call came in on', () => {
    expect(receiverTarget(loadConfig({ HOST: '0.0.0.0' }), 4321)).toEqual({ base: 'http://127.0.0.1:4321', localAllow: '127.0.0.1:4321' });
    expect(receiverTarget(loadConfig({ HOST: '::' }), 4321)).toEqual({ base: 'http://[::1]:4321', localAllow: '[::1]:4321' });
    expect(receiverTarget(loadConfig({ HOST: '10.1.2.3' }), 4321).base).toBe('http://10.1.2.3:4321');
  });

  test('a separate RECEIVER_PORT is used when set', () => {
    expect(receiverTarget(loadConfig({ HOST: '127.0.0.1', RECEIVER_PORT: '5555' }), 4321).base).toBe('http://127.0.0.1:5555');
  });

  test('a node without the receiver role sends to RECEIVER_URL, through the outbound guard', () => {
    const cfg = loadConfig({ ROLES: 'api', RECEIVER_URL: 'https://hooks.example.com' });
    expect(receiverTarget(cfg, 4321)).toEqual({ base: 'https://hooks.example.com', localAllow: null });
  });
});
