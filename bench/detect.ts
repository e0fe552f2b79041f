/**
 * Micro-benchmark of detectProvider on the capture path: `bun bench/detect.ts`.
 *
 * Times each kind of input separately and a mix, in ns per call, next to JSON.stringify of the
 * same capture (which the capture path already does once per request) for scale.
 */
import { detectProvider, type DetectInput } from '../src/engine/providers';
import { SAMPLES, request } from '../test/providers/samples';

const sample = (name: string): DetectInput => {
  const found = SAMPLES.find((s) => s.name === name);
  if (found === undefined) throw new Error(`no sample "${name}"`);
  return found.input;
};

const bigGeneric = request({
  headers: { 'user-agent': 'axios/1.6.8', 'x-request-id': 'r1', traceparent: '00-abc-def-01' },
  body: { type: 'order.updated', items: Array.from({ length: 200 }, (_, i) => ({ sku: `SKU-${i}`, qty: i, price: i * 1.5, note: 'n'.repeat(40) })) },
});

const CASES: Record<string, DetectInput> = {
  'generic JSON, no provider headers (1 KB)': request({
    headers: { 'user-agent': 'curl/8.5.0', accept: '*/*', 'x-request-id': 'a1b2' },
    body: { type: 'user.created', data: { id: 42, email: 'a@example.com', name: 'x'.repeat(900) } },
  }),
  'generic JSON, no provider headers (20 KB)': bigGeneric,
  'generic form post': request({ body: 'name=Jo&email=jo%40example.com&message=hello+there', contentType: 'application/x-www-form-urlencoded' }),
  'empty GET with query': request({ method: 'GET', query: { id: '1', token: 'abc' } }),
  'Stripe (header + body.type)': sample('Stripe payment_intent.succeeded'),
  'GitHub (headers + body.action)': sample('GitHub pull_request opened'),
  'Shopify (headers only)': sample('Shopify orders/create'),
  'Clerk via Svix (3 rules tried)': sample('Clerk user.created via Svix'),
  'Google Pub/Sub (body shape only)': sample('Google Cloud Storage notification via Pub/Sub push'),
  'Twilio (form)': sample('Twilio SMS status callback'),
};

const MIX_WEIGHTS: Record<string, number> = {
  'generic JSON, no provider headers (1 KB)': 30,
  'generic JSON, no provider headers (20 KB)': 5,
  'generic form post': 5,
  'empty GET with query': 10,
  'Stripe (header + body.type)': 15,
  'GitHub (headers + body.action)': 15,
  'Shopify (headers only)': 5,
  'Clerk via Svix (3 rules tried)': 5,
  'Google Pub/Sub (body shape only)': 5,
  'Twilio (form)': 5,
};

let sink = 0;

function time(run: () => void, iterations: number): number {
  for (let i = 0; i < Math.min(iterations, 20_000); i++) run();
  const start = Bun.nanoseconds();
  for (let i = 0; i < iterations; i++) run();
  return (Bun.nanoseconds() - start) / iterations;
}

function itersFor(input: DetectInput): number {
  return input.body.length > 10_000 ? 20_000 : 200_000;
}

const rows: [string, number, number][] = [];
for (const [name, input] of Object.entries(CASES)) {
  const detectNs = time(() => {
    sink += detectProvider(input).provider.length;
  }, itersFor(input));
  const stringifyNs = time(() => {
    sink += JSON.stringify(input).length;
  }, itersFor(input));
  rows.push([name, detectNs, stringifyNs]);
}

const mix: DetectInput[] = [];
for (const [name, weight] of Object.entries(MIX_WEIGHTS)) {
  const input = CASES[name];
  if (input === undefined) throw new Error(`unknown case "${name}"`);
  for (let i = 0; i < weight; i++) mix.push(input);
}
let cursor = 0;
const mixNs = time(() => {
  const input = mix[cursor++ % mix.length];
  if (input !== undefined) sink += detectProvider(input).provider.length;
}, 500_000);

const width = Math.max(...rows.map(([n]) => n.length));
console.log(`${'input'.padEnd(width)}  detect ns/op  JSON.stringify(capture) ns/op`);
for (const [name, detectNs, stringifyNs] of rows) {
  console.log(`${name.padEnd(width)}  ${detectNs.toFixed(0).padStart(12)}  ${stringifyNs.toFixed(0).padStart(29)}`);
}
console.log(`${'weighted mix'.padEnd(width)}  ${mixNs.toFixed(0).padStart(12)}`);
if (sink === 42) console.log('');
