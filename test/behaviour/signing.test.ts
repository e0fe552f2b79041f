import { expect, test } from 'bun:test';
import * as send from '../signing/senders';
import { call, eventually, json, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';

describeBackends('provider detection and signature verification, end to end', (h) => {
  async function setup(signing?: Record<string, unknown>) {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'sig' } })).body;
    if (signing) {
      const p = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { signing } });
      expect(p.status).toBe(200);
    }
    return { a, ep };
  }
  async function deliver(slug: string, headers: Record<string, string>, body: string, path = '') {
    const r = await fetch(`${h.url}/w/${slug}${path}`, { method: 'POST', headers, body });
    expect(r.status).toBe(200);
    return (await json(r)).id as string;
  }
  async function record(token: string, id: string) {
    return eventually(async () => {
      const r = await call(h.url, 'GET', `/api/requests/${id}`, { token });
      return r.status === 200 ? r.body : null;
    });
  }
  const nowS = () => Math.floor(Date.now() / 1000);

  test('the secret is never returned; reads show a hint', async () => {
    const secret = 'whsec_supersecretvalue1234';
    const { a, ep } = await setup({ provider: 'stripe', secret });
    const got = await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key });
    expect(got.body.signing).toEqual({ provider: 'stripe', secretHint: '…1234' });
    expect(got.text).not.toContain(secret);
    const list = await call(h.url, 'GET', '/api/endpoints', { token: a.key });
    expect(list.text).not.toContain(secret);
  });

  test('Stripe: verified, tampered, wrong secret, stale, missing header', async () => {
    const secret = 'whsec_test_abcdefghijklmnop';
    const { a, ep } = await setup({ provider: 'stripe', secret });
    const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'invoice.paid', data: { object: {} } });
    const good = send.stripe({ body, secret, at: nowS(), now: Date.now() });
    const ok = await record(a.key, await deliver(ep.slug, good.headers, body));
    expect(ok).toMatchObject({ signatureVerified: true, signatureError: null, signingProvider: 'stripe', detectedProvider: 'stripe', detectedEvent: 'invoice.paid' });

    const tampered = await record(a.key, await deliver(ep.slug, good.headers, body.replace('paid', 'void')));
    expect(tampered).toMatchObject({ signatureVerified: false, signatureError: 'mismatch', signingProvider: 'stripe' });

    const wrong = send.stripe({ body, secret: 'whsec_other_secret_value', at: nowS(), now: Date.now() });
    expect(await record(a.key, await deliver(ep.slug, wrong.headers, body))).toMatchObject({ signatureVerified: false, signatureError: 'mismatch' });

    const stale = send.stripe({ body, secret, at: nowS() - 3600, now: Date.now() });
    expect(await record(a.key, await deliver(ep.slug, stale.headers, body))).toMatchObject({
      signatureVerified: false,
      signatureError: 'timestamp_outside_tolerance',
    });

    expect(await record(a.key, await deliver(ep.slug, { 'content-type': 'application/json' }, body))).toMatchObject({
      signatureVerified: false,
      signatureError: 'missing_header: stripe-signature',
    });
  });

  test('GitHub, Standard Webhooks and generic HMAC verify through the receiver', async () => {
    const body = JSON.stringify({ action: 'opened', number: 1 });
    const gh = await setup({ provider: 'github', secret: 'gh-secret-0123456789' });
    const d = send.github({ body, secret: 'gh-secret-0123456789', at: nowS(), now: Date.now() });
    const ghRec = await record(gh.a.key, await deliver(gh.ep.slug, { ...d.headers, 'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958' }, body));
    expect(ghRec).toMatchObject({ signatureVerified: true, signingProvider: 'github', detectedProvider: 'github' });

    const whsec = `whsec_${Buffer.from('a-32-byte-secret-for-std-webhook').toString('base64')}`;
    const sw = await setup({ provider: 'standard-webhooks', secret: whsec });
    const swd = send.standardWebhooks({ body, secret: whsec, at: nowS(), now: Date.now() });
    expect(await record(sw.a.key, await deliver(sw.ep.slug, swd.headers, body))).toMatchObject({ signatureVerified: true, signingProvider: 'standard-webhooks' });

    const hm = await setup({ provider: 'hmac', secret: 'generic-secret', header: 'X-Sig', algorithm: 'sha512', encoding: 'base64', prefix: 'sha512=' });
    const sig = `sha512=${new Bun.CryptoHasher('sha512', 'generic-secret').update(body).digest('base64')}`;
    expect(await record(hm.a.key, await deliver(hm.ep.slug, { 'x-sig': sig }, body))).toMatchObject({ signatureVerified: true, signingProvider: 'hmac' });
    expect(await record(hm.a.key, await deliver(hm.ep.slug, { 'x-sig': `${sig}x` }, body))).toMatchObject({ signatureVerified: false });
  });

  test('Twilio signs the URL as the sender saw it (receiver URL + path + query)', async () => {
    const secret = 'twilio-auth-token-123';
    const { a, ep } = await setup({ provider: 'twilio', secret });
    const body = 'AccountSid=AC123&From=%2B15551234567&MessageStatus=delivered&SmsStatus=delivered';
    const url = `${h.url}/w/${ep.slug}/sms?x=1`;
    const d = send.twilio({ body, secret, at: nowS(), now: Date.now(), url });
    const rec = await record(a.key, await deliver(ep.slug, d.headers, body, '/sms?x=1'));
    expect(rec).toMatchObject({ signatureVerified: true, signatureError: null, signingProvider: 'twilio', detectedProvider: 'twilio' });
  });

  test('Twilio: a URL with a trailing slash after the slug verifies, and one without still does', async () => {
    const secret = 'twilio-auth-token-456';
    const { a, ep } = await setup({ provider: 'twilio', secret });
    const body = 'AccountSid=AC123&MessageStatus=sent';
    for (const path of ['/', '/?x=1', '', '?x=1']) {
      const d = send.twilio({ body, secret, at: nowS(), now: Date.now(), url: `${h.url}/w/${ep.slug}${path}` });
      const rec = await record(a.key, await deliver(ep.slug, d.headers, body, path));
      expect({ path, verified: rec.signatureVerified, error: rec.signatureError, recorded: rec.path }).toEqual({ path, verified: true, error: null, recorded: '/' });
    }
  });

  test('without signing the signature fields are absent; null turns it off; bad configs are 400', async () => {
    const { a, ep } = await setup({ provider: 'shopify', secret: 'shpss_0123456789abcdef' });
    const off = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { signing: null } });
    expect(off.body.signing).toBeNull();
    const rec = await record(a.key, await deliver(ep.slug, { 'content-type': 'application/json' }, '{"a":1}'));
    expect('signatureVerified' in rec).toBe(false);
    expect('signatureError' in rec).toBe(false);
    expect('signingProvider' in rec).toBe(false);
    expect(rec.detectedProvider).toBe('');
    for (const signing of [
      { provider: 'nope', secret: 'x' },
      { provider: 'stripe' },
      { provider: 'stripe', secret: '' },
      { provider: 'hmac', secret: 's', algorithm: 'md5', encoding: 'hex', header: 'x' },
      { provider: 'hmac', secret: 's', algorithm: 'sha256', encoding: 'hex' },
    ]) {
      const r = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { signing } });
      expect(r.status).toBe(400);
      expect(typeof r.body.error).toBe('string');
    }
  });

  test('detection: known senders are named, look-alikes are not', async () => {
    const { a, ep } = await setup();
    const gh = await record(
      a.key,
      await deliver(ep.slug, { 'x-github-event': 'pull_request', 'x-github-delivery': 'd1', 'x-github-hook-id': '1', 'content-type': 'application/json' }, '{"action":"opened"}'),
    );
    expect(gh).toMatchObject({ detectedProvider: 'github' });
    expect(gh.detectedEvent).toContain('pull_request');
    const shop = await record(a.key, await deliver(ep.slug, { 'x-shopify-topic': 'orders/create', 'x-shopify-shop-domain': 's.myshopify.com', 'x-shopify-hmac-sha256': 'x' }, '{}'));
    expect(shop).toMatchObject({ detectedProvider: 'shopify', detectedEvent: 'orders/create' });
    const generic = await record(a.key, await deliver(ep.slug, { 'content-type': 'application/json' }, '{"type":"invoice.paid","id":"evt_1"}'));
    expect(generic).toMatchObject({ detectedProvider: '', detectedEvent: '' });
  });
});

describeBackends(
  'DETECT_PROVIDERS=false turns detection off (bench/capture measures its cost this way)',
  (h) => {
    test('a Stripe delivery is stored without a guess', async () => {
      const a = await newAccount(h.url);
      const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'off' } })).body;
      const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'invoice.paid', data: { object: {} } });
      const r = await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': `t=${Math.floor(Date.now() / 1000)},v1=abc` }, body });
      expect(r.status).toBe(200);
      const id = (await json(r)).id as string;
      const rec = await eventually(async () => {
        const got = await call(h.url, 'GET', `/api/requests/${id}`, { token: a.key });
        return got.status === 200 ? got.body : null;
      });
      expect(rec).toMatchObject({ detectedProvider: '', detectedEvent: '' });
    });
  },
  { DETECT_PROVIDERS: 'false' },
);
