/**
 * bench/receiver-hardening — what the security hardening added to each capture, measured in
 * process (no HTTP): the slug format check, the session-cookie lookup, the prototype-less query
 * map, and the two extra constant headers on the default answer (through `new Response`). Old and
 * new variants run alternately, several rounds, so machine drift hits both alike.
 *
 *   node_modules/.bin/bun bench/receiver-hardening.ts     (BENCH_ITERATIONS, BENCH_ROUNDS)
 */
import { isSlug } from '../src/ids';
import { parseQuery, redactSessionCookie } from '../src/engine/capture';

const iterations = Number(process.env.BENCH_ITERATIONS ?? 200_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 7);

const slug = 'k7q4ypzsvace';
const id = 'req_01M855PJXKCBPQEAPA30A0TTNJ';
const body = `{"ok":true,"id":"${id}"}`;
// A typical webhook's headers (no cookie) as Bun's Headers#toJSON gives them.
const headers: Record<string, string> = {
  host: 'hooks.example.com',
  'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
  'content-type': 'application/json; charset=utf-8',
  'content-length': '1024',
  'stripe-signature': 't=1700000000,v1=abc',
  accept: '*/*',
};

/**
 * The baseline: src/engine/capture.ts's parseQuery as it was before the hardening, into a plain
 * object. A copy on purpose: the product no longer has it, and "after" imports today's parseQuery.
 */
function parseQueryOld(query: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (!query) return out;
  for (const [k, v] of new URLSearchParams(query)) {
    const prev = out[k];
    if (prev === undefined) out[k] = v;
    else if (Array.isArray(prev)) prev.push(v);
    else out[k] = [prev, v];
  }
  return out;
}

let sink = 0;

function before(query: string): void {
  const q = parseQueryOld(query);
  const res = new Response(body, { status: 200, headers: { 'content-type': 'application/json', 'x-request-id': id } });
  sink += res.status + Object.keys(q).length;
}

function after(query: string): void {
  if (!isSlug(slug)) throw new Error('slug');
  const cookie = headers.cookie;
  if (cookie !== undefined) headers.cookie = redactSessionCookie(cookie);
  const q = parseQuery(query);
  const res = new Response(body, {
    status: 200,
    headers: { 'content-type': 'application/json', 'x-request-id': id, 'content-security-policy': 'sandbox', 'x-content-type-options': 'nosniff' },
  });
  sink += res.status + Object.keys(q).length;
}

function nsPer(fn: (query: string) => void, query: string): number {
  const t0 = Bun.nanoseconds();
  for (let i = 0; i < iterations; i++) fn(query);
  return (Bun.nanoseconds() - t0) / iterations;
}

for (const [label, query] of [['no query string', ''], ['query "a=1&b=2&b=3"', 'a=1&b=2&b=3']] as const) {
  nsPer(before, query);
  nsPer(after, query);
  const diffs: number[] = [];
  const olds: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const o = nsPer(before, query);
    const n = nsPer(after, query);
    olds.push(o);
    diffs.push(n - o);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  console.log(`${label}: before ${median(olds).toFixed(0)} ns, after − before ${median(diffs).toFixed(0)} ns (median of ${rounds} rounds; per round: ${diffs.map((d) => d.toFixed(0)).join(', ')})`);
}
if (sink === 0) console.log('');
