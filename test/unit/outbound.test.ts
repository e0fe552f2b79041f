/**
 * The outbound guard against real local HTTP(S) servers. A `lookup` is injected only where a test
 * needs a name to resolve somewhere /etc/hosts does not say; `localhost` goes through real DNS.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { AllowList } from '../../src/net/allow';
import { literalTargetRefusal, OutboundError, sendOutbound, type Lookup, type OutboundPolicy } from '../../src/net/outbound';
import { startHookReceiver, uniquePath } from '../support/hook-receiver';

const target = startHookReceiver();
const forbidden = startHookReceiver();
afterAll(() => {
  target.stop();
  forbidden.stop();
});

const allowTarget = AllowList.parse([`127.0.0.1:${target.port}`]);
const policy = (over: Partial<OutboundPolicy> = {}): OutboundPolicy => ({ allow: allowTarget, timeoutMs: 2_000, maxRedirects: 5, ...over });
const post = (url: string) => ({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' });

async function failure(p: Promise<unknown>): Promise<OutboundError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof OutboundError) return err;
    throw err;
  }
  throw new Error('expected an OutboundError');
}

describe('address checks', () => {
  test('loopback is refused without an allow entry, and nothing is sent', async () => {
    const path = uniquePath('deny');
    const err = await failure(sendOutbound(post(`${forbidden.url}${path}`), policy()));
    expect(err.kind).toBe('blocked');
    expect(err.message).toContain('loopback');
    expect(forbidden.received(path)).toHaveLength(0);
  });

  test('an allowed host:port is reached', async () => {
    const path = uniquePath('ok');
    const { response } = await sendOutbound(post(`${target.url}${path}`), policy());
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('ok');
    const got = target.received(path);
    expect(got).toHaveLength(1);
    expect(got[0]?.method).toBe('POST');
    expect(got[0]?.body).toBe('{"n":1}');
  });

  test('a name is checked after DNS resolution: localhost is loopback', async () => {
    const path = uniquePath('dns');
    const err = await failure(sendOutbound(post(`http://localhost:${forbidden.port}${path}`), policy()));
    expect(err.kind).toBe('blocked');
    expect(err.message).toMatch(/localhost \((127\.0\.0\.1|::1)\)/);
    expect(forbidden.received(path)).toHaveLength(0);
  });

  test('the allowed IP also admits a name that resolves to it', async () => {
    const path = uniquePath('name-to-ip');
    const { response } = await sendOutbound(post(`http://localhost:${target.port}${path}`), policy({ lookup: async () => ['127.0.0.1'] }));
    expect(response.status).toBe(200);
    expect(target.received(path)).toHaveLength(1);
  });

  test('one private address among public ones is enough to refuse', async () => {
    const lookup: Lookup = async () => ['93.184.216.34', '10.1.2.3'];
    const err = await failure(sendOutbound(post('http://mixed.example/x'), policy({ lookup })));
    expect(err.kind).toBe('blocked');
    expect(err.message).toContain('10.1.2.3');
  });

  test('IP literals in every spelling, metadata and IPv6 loopback are refused before connecting', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]:9/',
      'http://[::ffff:127.0.0.1]:9/',
      'http://2130706433:9/', // 127.0.0.1 as one decimal number
      'http://0x7f.1:9/',
      'http://0:9/',
      'http://10.0.0.1/',
      'http://[fd00:ec2::254]/',
    ]) {
      const err = await failure(sendOutbound(post(url), policy()));
      expect(err.kind).toBe('blocked');
    }
  });

  test('non-http schemes and broken URLs are refused', async () => {
    expect((await failure(sendOutbound(post('ftp://example.com/x'), policy()))).kind).toBe('invalid_url');
    expect((await failure(sendOutbound(post('file:///etc/passwd'), policy()))).kind).toBe('invalid_url');
    expect((await failure(sendOutbound(post('not a url'), policy()))).kind).toBe('invalid_url');
  });

  test('a name that does not resolve is a dns failure', async () => {
    const err = await failure(sendOutbound(post('http://no-such-host.invalid/x'), policy()));
    expect(err.kind).toBe('dns');
  });
});

describe('literalTargetRefusal: judging a URL ahead of any send, without a lookup', () => {
  test('an IP literal gets the refusal a send would give, in the same words', async () => {
    for (const url of ['http://127.0.0.1:9/hook', 'http://[::1]:9/', 'http://2130706433:9/', 'https://10.1.2.3/', 'http://169.254.169.254/latest/meta-data/', 'http://[fd00::5]/']) {
      const refused = literalTargetRefusal(url, allowTarget);
      expect([url, refused]).toEqual([url, expect.stringMatching(/ is a [a-z-]+ address$/)]);
      const err = await failure(sendOutbound(post(url), policy()));
      expect(err.message).toStartWith(`${refused};`);
    }
    expect(literalTargetRefusal('http://127.0.0.1:9/hook', AllowList.none)).toBe('127.0.0.1 is a loopback address');
    expect(literalTargetRefusal('http://169.254.169.254/', AllowList.none)).toBe('169.254.169.254 is a metadata address');
  });

  test('OUTBOUND_ALLOW is honoured as at a send: IP and port (default ports too), CIDR', () => {
    expect(literalTargetRefusal(`http://127.0.0.1:${target.port}/x`, allowTarget)).toBeNull();
    expect(literalTargetRefusal(`http://127.0.0.1:${forbidden.port}/x`, allowTarget)).toBe('127.0.0.1 is a loopback address');
    const port80 = AllowList.parse(['127.0.0.1:80']);
    expect(literalTargetRefusal('http://127.0.0.1/x', port80)).toBeNull();
    expect(literalTargetRefusal('https://127.0.0.1/x', port80)).toBe('127.0.0.1 is a loopback address');
    expect(literalTargetRefusal('http://10.1.2.3/x', AllowList.parse(['10.0.0.0/8']))).toBeNull();
  });

  test('localhost is 127.0.0.1 and ::1 whatever DNS says; an allow entry by name covers both', () => {
    for (const url of ['http://localhost:9/', 'http://LOCALHOST.:9/']) expect(literalTargetRefusal(url, AllowList.none)).toBe('localhost (127.0.0.1) is a loopback address');
    // Allowing 127.0.0.1 alone leaves ::1, which a resolver may answer first.
    expect(literalTargetRefusal('http://localhost:9/', AllowList.parse(['127.0.0.1:9']))).toBe('localhost (::1) is a loopback address');
    expect(literalTargetRefusal('http://localhost:9/', AllowList.parse(['localhost:9']))).toBeNull();
    expect(literalTargetRefusal('http://localhost:9/', AllowList.parse(['localhost']))).toBeNull();
    expect(literalTargetRefusal('http://localhost:9/', AllowList.parse(['localhost:10']))).toBe('localhost (127.0.0.1) is a loopback address');
  });

  test('a host name (a subdomain of localhost too), a public address or no http URL at all: nothing to say now', () => {
    for (const url of ['https://hooks.example.com/x', 'http://api.localhost/x', 'https://8.8.8.8/x', 'ftp://127.0.0.1/x', 'not a url']) {
      expect([url, literalTargetRefusal(url, AllowList.none)]).toEqual([url, null]);
    }
  });
});

describe('connecting to the vetted address', () => {
  test('the connection goes to the address the check saw, with the original Host header', async () => {
    const path = uniquePath('pin');
    let lookups = 0;
    const lookup: Lookup = async (host) => {
      lookups++;
      return host === 'pinned.test' ? ['127.0.0.1'] : [];
    };
    const allow = AllowList.parse(['pinned.test']);
    const { response } = await sendOutbound(post(`http://pinned.test:${target.port}${path}`), policy({ allow, lookup }));
    expect(response.status).toBe(200);
    expect(lookups).toBe(1);
    expect(target.received(path)[0]?.headers.host).toBe(`pinned.test:${target.port}`);
  });

  test('https: TLS verifies the certificate against the host name while connecting to the vetted IP', async () => {
    const dir = join(import.meta.dir, 'fixtures');
    const cert = await Bun.file(join(dir, 'pinned-test.cert.pem')).text();
    const key = await Bun.file(join(dir, 'pinned-test.key.pem')).text();
    const tls = Bun.serve({ port: 0, hostname: '127.0.0.1', tls: { cert, key }, fetch: (r) => new Response(r.headers.get('host')) });
    try {
      const lookup: Lookup = async () => ['127.0.0.1'];
      const allow = AllowList.parse(['pinned.test', 'other.test']);
      const { response } = await sendOutbound(post(`https://pinned.test:${tls.port}/`), policy({ allow, lookup, ca: cert }));
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(`pinned.test:${tls.port}`);
      // Same address, a name the certificate does not cover: the TLS check must fail.
      const err = await failure(sendOutbound(post(`https://other.test:${tls.port}/`), policy({ allow, lookup, ca: cert })));
      expect(err.kind).toBe('network');
    } finally {
      void tls.stop(true);
    }
  });
});

describe('redirects', () => {
  test('each hop is checked again: a redirect to a forbidden address is refused', async () => {
    const path = uniquePath('to-forbidden');
    const sink = uniquePath('sink');
    target.script(path, () => new Response(null, { status: 307, headers: { location: `${forbidden.url}${sink}` } }));
    const err = await failure(sendOutbound(post(`${target.url}${path}`), policy()));
    expect(err.kind).toBe('blocked');
    expect(target.received(path)).toHaveLength(1);
    expect(forbidden.received(sink)).toHaveLength(0);
  });

  test('307 keeps the method and body; 303 turns into a GET without a body', async () => {
    const a = uniquePath('a');
    const b = uniquePath('b');
    const c = uniquePath('c');
    target.script(a, () => new Response(null, { status: 307, headers: { location: b } }));
    target.script(b, () => new Response(null, { status: 303, headers: { location: `${target.url}${c}` } }));
    const { response, url } = await sendOutbound(post(`${target.url}${a}`), policy());
    expect(response.status).toBe(200);
    expect(url).toBe(`${target.url}${c}`);
    expect(target.received(b)[0]).toMatchObject({ method: 'POST', body: '{"n":1}' });
    expect(target.received(c)[0]).toMatchObject({ method: 'GET', body: '' });
    expect(target.received(c)[0]?.headers['content-type']).toBeUndefined();
  });

  test('at most maxRedirects hops are followed', async () => {
    const loop = uniquePath('loop');
    target.script(loop, () => new Response(null, { status: 302, headers: { location: loop } }));
    const err = await failure(sendOutbound(post(`${target.url}${loop}`), policy({ maxRedirects: 5 })));
    expect(err.kind).toBe('redirects');
    expect(target.received(loop)).toHaveLength(6);
  });

  test('with maxRedirects 0 the redirect itself is the answer', async () => {
    const path = uniquePath('noredirect');
    target.script(path, () => new Response('moved', { status: 302, headers: { location: 'http://169.254.169.254/' } }));
    const { response } = await sendOutbound(post(`${target.url}${path}`), policy({ maxRedirects: 0 }));
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('http://169.254.169.254/');
  });
});

describe('timeouts and network errors', () => {
  test('a receiver slower than the timeout is a timeout, reported on time', async () => {
    const path = uniquePath('slow');
    target.script(path, async () => {
      await Bun.sleep(1_500);
      return new Response('late');
    });
    const started = Date.now();
    const err = await failure(sendOutbound(post(`${target.url}${path}`), policy({ timeoutMs: 300 })));
    expect(err.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1_200);
  });

  test('nothing listening is a network error', async () => {
    const closed = startHookReceiver();
    const port = closed.port;
    closed.stop();
    await Bun.sleep(50);
    const err = await failure(sendOutbound(post(`http://127.0.0.1:${port}/`), policy({ allow: AllowList.parse([`127.0.0.1:${port}`]) })));
    expect(err.kind).toBe('network');
  });
});
