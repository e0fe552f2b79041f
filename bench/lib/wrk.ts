/** Runs wrk against a URL and parses its summary. */
import { join } from 'node:path';

export interface WrkResult {
  /** 2xx responses per second (wrk's own Requests/sec counts every response). */
  rps: number;
  requests: number;
  /** How long wrk ran. */
  seconds: number;
  non2xx: number;
  errors: number;
  p50: number;
  p99: number;
  /** wrk's latency distribution (--latency): ms at the 50th, 75th, 90th and 99th percentiles. */
  percentiles: { p: number; ms: number }[];
}

/** The body wrk's post.lua sends, for the benches' own generators to send the same request. */
export async function postBody(): Promise<string> {
  return (await Bun.file(join(import.meta.dir, 'post.lua')).text()).match(/wrk\.body = '(.*)'/)?.[1] ?? '{}';
}

function ms(v: string, unit: string): number {
  const n = Number(v);
  return unit === 'us' ? n / 1000 : unit === 's' ? n * 1000 : n;
}

/** `script`: a wrk Lua script (post.lua by default), given `args` after `--`. */
export async function wrk(url: string, opts: { connections: number; seconds: number; threads?: number; script?: string; args?: string[] }): Promise<WrkResult> {
  const script = opts.script ?? join(import.meta.dir, 'post.lua');
  const proc = Bun.spawn(
    ['wrk', `-t${opts.threads ?? 1}`, `-c${opts.connections}`, `-d${opts.seconds}s`, '--latency', '-s', script, url, ...(opts.args?.length ? ['--', ...opts.args] : [])],
    { stdout: 'pipe', stderr: 'pipe' },
  );
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const took = /requests in ([\d.]+)(ms|s|m),/.exec(out);
  const seconds = took?.[1] && took[2] ? Number(took[1]) * (took[2] === 'ms' ? 0.001 : took[2] === 'm' ? 60 : 1) : opts.seconds;
  const rps = (requests - non2xx) / seconds;
  const errMatch = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = errMatch ? errMatch.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  const pct = (p: string) => {
    const m = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    return m?.[1] && m[2] ? ms(m[1], m[2]) : Number.NaN;
  };
  return { rps, requests, seconds, non2xx, errors, p50: pct('50'), p99: pct('99'), percentiles: [50, 75, 90, 99].map((p) => ({ p, ms: pct(String(p)) })) };
}
