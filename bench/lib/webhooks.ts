/**
 * Generated webhook captures that look like real traffic: Stripe events, GitHub pushes and pull
 * requests, Shopify orders, Twilio SMS callbacks (form-encoded) and in-house app events, with the
 * headers those senders send, bodies from ~300 B to ~4 KB (about 1 KB on average), a few GETs
 * and query strings. Words come from small vocabularies, so bench search terms hit a realistic
 * share of rows.
 */
import { captureId } from '../../src/ids';
import type { Capture } from '../../src/model/capture';
import type { Rng } from './random';

export const FIRST_NAMES = [
  'alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy', 'mallory', 'niaj',
  'olivia', 'peggy', 'rupert', 'sybil', 'trent', 'victor', 'walter', 'yasmin', 'zoe', 'morgan', 'noah', 'liam',
];
export const LAST_NAMES = ['smith', 'jones', 'garcia', 'miller', 'davis', 'martin', 'lopez', 'wilson', 'anderson', 'thomas', 'moore', 'taylor'];
export const COMPANIES = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'stark', 'wayne', 'wonka', 'tyrell', 'cyberdyne', 'soylent', 'vandelay'];
export const PRODUCTS = ['T-Shirt', 'Coffee Mug', 'Hoodie', 'Sticker Pack', 'Water Bottle', 'Notebook', 'Backpack', 'Desk Lamp', 'Keyboard', 'Headphones'];
export const STRIPE_EVENTS = [
  'invoice.paid', 'invoice.payment_failed', 'customer.subscription.updated', 'customer.subscription.deleted',
  'charge.succeeded', 'charge.refunded', 'payment_intent.succeeded', 'checkout.session.completed',
];
export const SHOPIFY_TOPICS = ['orders/create', 'orders/paid', 'orders/fulfilled', 'orders/cancelled', 'customers/create', 'refunds/create'];
export const APP_EVENTS = ['user.signup', 'user.login', 'user.deleted', 'team.invite.sent', 'export.finished', 'build.failed', 'deploy.succeeded'];
const REPOS = ['payments-api', 'web-frontend', 'infra', 'mobile-app', 'data-pipeline', 'docs'];
const COMMIT_MESSAGES = [
  'Fix null check in invoice parser', 'Bump dependencies', 'Add retry to webhook sender', 'Refactor checkout flow',
  'Update README', 'Handle timeout in payment client', 'Add dark mode toggle', 'Remove dead code', 'Speed up CSV export',
];
const CITIES = ['Berlin', 'Lisbon', 'Austin', 'Toronto', 'Osaka', 'Nairobi', 'Melbourne', 'Oslo', 'Bogotá', 'Kraków'];
const CURRENCIES = ['usd', 'eur', 'gbp', 'jpy', 'cad'];
const PATHS = ['/', '/webhooks', '/hooks/incoming', '/api/v1/events', '/callback'];

interface Shape {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  query: Record<string, string | string[]>;
  contentType: string;
  provider: string;
  event: string;
}

const sec = (ms: number) => Math.floor(ms / 1000);

function person(rng: Rng) {
  const first = rng.pick(FIRST_NAMES);
  const last = rng.pick(LAST_NAMES);
  const company = rng.pick(COMPANIES);
  return { first, last, name: `${first[0]?.toUpperCase()}${first.slice(1)} ${last[0]?.toUpperCase()}${last.slice(1)}`, email: `${first}.${last}@${company}.io`, company };
}

function jsonHeaders(rng: Rng, userAgent: string, extra: Record<string, string>): Record<string, string> {
  return {
    'content-type': 'application/json; charset=utf-8',
    'user-agent': userAgent,
    accept: '*/*',
    'accept-encoding': 'gzip',
    'x-forwarded-proto': 'https',
    'x-request-start': String(rng.int(1_000_000, 9_999_999)),
    ...extra,
  };
}

function stripe(rng: Rng, at: number): Shape {
  const who = person(rng);
  const type = rng.pick(STRIPE_EVENTS);
  const amount = rng.int(100, 250_000);
  const currency = rng.pick(CURRENCIES);
  const object = type.startsWith('invoice')
    ? {
        id: `in_${rng.alnum(24)}`, object: 'invoice', amount_due: amount, amount_paid: type === 'invoice.paid' ? amount : 0,
        currency, customer: `cus_${rng.alnum(14)}`, customer_email: who.email, customer_name: who.name,
        status: type === 'invoice.paid' ? 'paid' : 'open', number: `${who.company.toUpperCase()}-${rng.int(1000, 9999)}`,
        lines: { object: 'list', data: [{ id: `il_${rng.alnum(24)}`, amount, description: `1 × ${rng.pick(PRODUCTS)} (at $${(amount / 100).toFixed(2)} / month)`, period: { start: sec(at) - 2_592_000, end: sec(at) } }] },
        metadata: { order_id: `ord_${rng.int(100_000, 999_999)}`, plan: rng.pick(['starter', 'pro', 'enterprise']) },
      }
    : {
        id: `${type.startsWith('charge') ? 'ch' : type.startsWith('payment') ? 'pi' : type.startsWith('checkout') ? 'cs' : 'sub'}_${rng.alnum(24)}`,
        object: type.split('.')[0], amount, currency, customer: `cus_${rng.alnum(14)}`,
        billing_details: { email: who.email, name: who.name, address: { city: rng.pick(CITIES), postal_code: String(rng.int(10000, 99999)) } },
        description: `${rng.pick(PRODUCTS)} for ${who.company}`, status: type.endsWith('failed') ? 'failed' : 'succeeded',
        metadata: { order_id: `ord_${rng.int(100_000, 999_999)}` },
      };
  // Stripe sends its events pretty-printed.
  const body = JSON.stringify(
    {
      id: `evt_${rng.alnum(24)}`, object: 'event', api_version: '2023-10-16', created: sec(at),
      data: { object }, livemode: rng.chance(0.7), pending_webhooks: 1,
      request: { id: `req_${rng.alnum(14)}`, idempotency_key: rng.uuid() }, type,
    },
    null,
    2,
  );
  return {
    method: 'POST',
    path: rng.chance(0.5) ? '/webhooks/stripe' : rng.pick(PATHS),
    headers: jsonHeaders(rng, 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', {
      'stripe-signature': `t=${sec(at)},v1=${rng.hex(64)}`,
      'cache-control': 'no-cache',
    }),
    body,
    query: {},
    contentType: 'application/json; charset=utf-8',
    provider: 'stripe',
    event: type,
  };
}

function github(rng: Rng, at: number): Shape {
  const who = person(rng);
  const repo = `${who.company}/${rng.pick(REPOS)}`;
  const isPush = rng.chance(0.6);
  const event = isPush ? 'push' : 'pull_request';
  const api = `https://api.github.com/repos/${repo}`;
  // GitHub repeats the repository's URL templates in every payload; they are most of its size.
  const repository = {
    id: rng.int(10_000_000, 99_999_999), name: repo.split('/')[1], full_name: repo, private: true,
    owner: { login: who.company, type: 'Organization', url: `https://api.github.com/users/${who.company}` },
    html_url: `https://github.com/${repo}`, url: api, forks_url: `${api}/forks`, keys_url: `${api}/keys{/key_id}`,
    hooks_url: `${api}/hooks`, issues_url: `${api}/issues{/number}`, pulls_url: `${api}/pulls{/number}`,
    commits_url: `${api}/commits{/sha}`, compare_url: `${api}/compare/{base}...{head}`, clone_url: `https://github.com/${repo}.git`,
    default_branch: 'main', language: rng.pick(['TypeScript', 'Go', 'Python', 'Rust']), stargazers_count: rng.int(0, 500),
  };
  const sender = { login: `${who.first}${who.last}`, id: rng.int(100_000, 9_999_999), type: 'User' };
  const payload = isPush
    ? {
        ref: 'refs/heads/main', before: rng.hex(40), after: rng.hex(40), repository, pusher: { name: sender.login, email: who.email }, sender,
        commits: Array.from({ length: rng.int(1, 4) }, () => ({
          id: rng.hex(40), message: rng.pick(COMMIT_MESSAGES), timestamp: new Date(at).toISOString(),
          author: { name: who.name, email: who.email }, added: [], modified: [`src/${rng.pick(['app', 'lib', 'api'])}/${rng.pick(['index', 'client', 'server'])}.ts`], removed: [],
        })),
      }
    : {
        action: rng.pick(['opened', 'closed', 'synchronize', 'reopened']), number: rng.int(1, 5000),
        pull_request: { title: rng.pick(COMMIT_MESSAGES), state: 'open', user: sender, body: `Closes #${rng.int(1, 5000)}. ${rng.pick(COMMIT_MESSAGES)}.`, head: { ref: `feature/${rng.pick(PRODUCTS).toLowerCase().replace(/\W+/g, '-')}` }, base: { ref: 'main' } },
        repository, sender,
      };
  return {
    method: 'POST',
    path: rng.chance(0.5) ? '/hooks/github' : rng.pick(PATHS),
    headers: jsonHeaders(rng, `GitHub-Hookshot/${rng.hex(7)}`, {
      'x-github-event': event,
      'x-github-delivery': rng.uuid(),
      'x-github-hook-id': String(rng.int(100_000_000, 999_999_999)),
      'x-hub-signature-256': `sha256=${rng.hex(64)}`,
    }),
    body: JSON.stringify(payload),
    query: {},
    contentType: 'application/json',
    provider: 'github',
    event,
  };
}

function shopify(rng: Rng, at: number): Shape {
  const who = person(rng);
  const topic = rng.pick(SHOPIFY_TOPICS);
  const items = Array.from({ length: rng.int(1, 5) }, () => ({
    id: rng.int(1e9, 9e9), title: rng.pick(PRODUCTS), quantity: rng.int(1, 4), price: (rng.int(500, 9000) / 100).toFixed(2), sku: `SKU-${rng.int(1000, 9999)}`,
  }));
  const address = {
    first_name: who.first, last_name: who.last, address1: `${rng.int(1, 999)} ${rng.pick(LAST_NAMES)} street`, city: rng.pick(CITIES),
    zip: String(rng.int(10000, 99999)), country_code: rng.pick(['US', 'DE', 'PT', 'JP', 'CA']), phone: `+1${rng.int(200, 999)}555${rng.int(1000, 9999)}`,
  };
  const total = items.reduce((s, i) => s + Number(i.price) * i.quantity, 0);
  const body = JSON.stringify({
    id: rng.int(1e12, 9e12), email: who.email, created_at: new Date(at).toISOString(), currency: rng.pick(CURRENCIES).toUpperCase(),
    total_price: total.toFixed(2), financial_status: topic === 'orders/paid' ? 'paid' : 'pending', name: `#${rng.int(1000, 99999)}`,
    customer: { first_name: who.first, last_name: who.last, email: who.email }, line_items: items,
    shipping_address: address, billing_address: address, gateway: rng.pick(['shopify_payments', 'paypal', 'manual']),
    browser_ip: `${rng.int(3, 223)}.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 255)}`, landing_site: `/products/${rng.pick(PRODUCTS).toLowerCase().replace(/\W+/g, '-')}`,
    tags: rng.pick(['', 'vip', 'wholesale', 'repeat-customer']), note: rng.chance(0.2) ? `Gift for ${rng.pick(FIRST_NAMES)}` : null,
    order_status_url: `https://${who.company}.myshopify.com/${rng.int(1e8, 9e8)}/orders/${rng.hex(32)}/authenticate?key=${rng.hex(32)}`,
  });
  return {
    method: 'POST',
    path: rng.pick(PATHS),
    headers: jsonHeaders(rng, 'Shopify-Captain-Hook', {
      'x-shopify-topic': topic,
      'x-shopify-shop-domain': `${who.company}.myshopify.com`,
      'x-shopify-hmac-sha256': Buffer.from(rng.hex(64), 'hex').toString('base64'),
      'x-shopify-webhook-id': rng.uuid(),
      'x-shopify-api-version': '2024-01',
    }),
    body,
    query: {},
    contentType: 'application/json',
    provider: 'shopify',
    event: topic,
  };
}

function twilio(rng: Rng): Shape {
  const code = rng.int(100_000, 999_999);
  const params = new URLSearchParams({
    ToCountry: 'US', ToState: 'CA', SmsMessageSid: `SM${rng.hex(32)}`, NumMedia: '0', ToCity: 'SAN FRANCISCO',
    FromZip: String(rng.int(10000, 99999)), SmsSid: `SM${rng.hex(32)}`, FromState: 'NY', SmsStatus: 'received',
    FromCity: 'NEW YORK', Body: `Your ${rng.pick(COMPANIES)} code is ${code}`, FromCountry: 'US', To: `+1415${rng.int(1000000, 9999999)}`,
    MessagingServiceSid: `MG${rng.hex(32)}`, NumSegments: '1', MessageSid: `SM${rng.hex(32)}`, AccountSid: `AC${rng.hex(32)}`,
    From: `+1212${rng.int(1000000, 9999999)}`, ApiVersion: '2010-04-01',
  });
  return {
    method: 'POST',
    path: '/sms',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'user-agent': 'TwilioProxy/1.1',
      'x-twilio-signature': Buffer.from(rng.hex(40), 'hex').toString('base64'),
      'i-twilio-idempotency-token': rng.uuid(),
      accept: '*/*',
    },
    body: params.toString(),
    query: {},
    contentType: 'application/x-www-form-urlencoded',
    provider: 'twilio',
    event: 'sms.received',
  };
}

function app(rng: Rng, at: number): Shape {
  const who = person(rng);
  const event = rng.pick(APP_EVENTS);
  if (rng.chance(0.25)) {
    // Health checks and GET callbacks: no body, the data is in the query string.
    return {
      method: 'GET',
      path: rng.pick(['/', '/health', '/callback']),
      headers: { 'user-agent': rng.pick(['curl/8.4.0', 'kube-probe/1.29', 'Go-http-client/1.1']), accept: '*/*' },
      body: '',
      query: { source: rng.pick(['prod', 'staging']), attempt: String(rng.int(1, 4)), tag: [rng.pick(COMPANIES), rng.pick(FIRST_NAMES)] },
      contentType: '',
      provider: '',
      event: '',
    };
  }
  const body = JSON.stringify({
    event, id: rng.uuid(), timestamp: new Date(at).toISOString(), source: rng.pick(['web', 'ios', 'android', 'api']),
    user: { id: `usr_${rng.alnum(16)}`, email: who.email, name: who.name, plan: rng.pick(['free', 'pro', 'teams']), company: who.company },
    context: { ip: `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 255)}`, locale: rng.pick(['en-US', 'de-DE', 'pt-PT', 'ja-JP']), city: rng.pick(CITIES) },
  });
  return {
    method: rng.chance(0.9) ? 'POST' : rng.pick(['PUT', 'PATCH', 'DELETE']),
    path: rng.pick(PATHS),
    headers: jsonHeaders(rng, `${who.company}-events/2.${rng.int(0, 9)}`, { 'x-event-type': event, 'x-signature': rng.hex(64) }),
    body,
    query: rng.chance(0.3) ? { env: rng.pick(['prod', 'staging']) } : {},
    contentType: 'application/json; charset=utf-8',
    provider: '',
    event: '',
  };
}

/** One capture of `endpointId` received at `at`. */
export function webhookCapture(rng: Rng, endpointId: string, at: number): Capture {
  const r = rng.next();
  const s = r < 0.3 ? stripe(rng, at) : r < 0.55 ? github(rng, at) : r < 0.75 ? shopify(rng, at) : r < 0.85 ? twilio(rng) : app(rng, at);
  return {
    id: captureId(at),
    endpointId,
    method: s.method,
    path: s.path,
    headers: s.headers,
    body: s.body,
    bodyEncoding: 'utf8',
    queryParams: s.query,
    contentType: s.contentType,
    ip: `${rng.int(3, 223)}.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 255)}`,
    size: Buffer.byteLength(s.body),
    receivedAt: at,
    detectedProvider: s.provider,
    detectedEvent: s.event,
  };
}
