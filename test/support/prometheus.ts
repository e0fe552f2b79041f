/**
 * A strict reader of Prometheus' text exposition format 0.0.4, written from the format's
 * description (not from src/http/metrics.ts), so the tests check the renderer against the format:
 * every line is a HELP, a TYPE, or a sample; label values are unescaped character by character.
 */

export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
  line: string;
}

export interface PromText {
  help: Map<string, string>;
  type: Map<string, string>;
  samples: PromSample[];
  /** Lines that break the format, each with why; empty for a valid text. */
  problems: string[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const VALUE = /^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|NaN|[+-]Inf)$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/** HELP's escapes: `\\` and `\n`. */
function unescapeHelp(text: string): string {
  return text.replace(/\\(\\|n)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));
}

function parseSample(line: string): PromSample | string {
  const name = NAME.exec(line)?.[0];
  if (!name) return 'no metric name';
  let i = name.length;
  const labels: Record<string, string> = {};
  if (line[i] === '{') {
    i++;
    while (line[i] !== '}') {
      const label = LABEL.exec(line.slice(i))?.[0];
      if (!label) return `bad label name at ${i}`;
      i += label.length;
      if (line[i] !== '=' || line[i + 1] !== '"') return `label ${label}: expected ="`;
      i += 2;
      let value = '';
      for (;;) {
        const c = line[i];
        if (c === undefined) return `label ${label}: unterminated value`;
        if (c === '"') break;
        if (c === '\\') {
          const e = line[i + 1];
          if (e === '\\') value += '\\';
          else if (e === '"') value += '"';
          else if (e === 'n') value += '\n';
          else return `label ${label}: bad escape \\${e ?? ''}`;
          i += 2;
          continue;
        }
        if (c === '\n') return `label ${label}: raw line feed`;
        value += c;
        i++;
      }
      i++;
      if (label in labels) return `label ${label} twice`;
      labels[label] = value;
      if (line[i] === ',') i++;
      else if (line[i] !== '}') return `after label ${label}: expected , or }`;
    }
    i++;
  }
  if (line[i] !== ' ') return 'expected a space before the value';
  const rest = line.slice(i + 1).split(' ');
  const raw = rest[0] ?? '';
  if (!VALUE.test(raw)) return `value "${raw}" is not a float`;
  if (rest.length > 2 || (rest.length === 2 && !/^-?\d+$/.test(rest[1] ?? ''))) return 'trailing text after the value';
  const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
  return { name, labels, value, line };
}

export function parsePromText(text: string): PromText {
  const out: PromText = { help: new Map(), type: new Map(), samples: [], problems: [] };
  if (!text.endsWith('\n')) out.problems.push('the text does not end with a line feed');
  const lines = text.split('\n');
  lines.pop();
  lines.forEach((line, n) => {
    const at = `line ${n + 1}: ${line}`;
    if (line === '') return;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
      if (!m) {
        // Other comments are allowed; a malformed HELP or TYPE is not.
        if (/^#\s*(HELP|TYPE)\b/.test(line)) out.problems.push(`${at}: malformed`);
        return;
      }
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      const map = kind === 'HELP' ? out.help : out.type;
      if (map.has(name)) out.problems.push(`${at}: second ${kind}`);
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) out.problems.push(`${at}: unknown type`);
        if (out.samples.some((s) => s.name === name)) out.problems.push(`${at}: TYPE after a sample`);
      }
      if (kind === 'HELP' && /\\(?![\\n])/.test(rest)) out.problems.push(`${at}: bad escape in HELP`);
      map.set(name, kind === 'HELP' ? unescapeHelp(rest) : rest);
      return;
    }
    const sample = parseSample(line);
    if (typeof sample === 'string') out.problems.push(`${at}: ${sample}`);
    else out.samples.push(sample);
  });
  return out;
}

/** The one sample of `name` whose labels include `labels`; throws when there is none or several. */
export function sampleValue(text: PromText, name: string, labels: Record<string, string> = {}): number {
  const found = text.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length !== 1) throw new Error(`${found.length} samples of ${name}${JSON.stringify(labels)}`);
  return (found[0] as PromSample).value;
}

/**
 * Every receiver refusal reason and the status a sender gets for it (docs/operations.md,
 * "/healthz"), written out here rather than read from src, so a reason added, dropped or answered
 * otherwise in src/engine/refusals.ts fails the tests that compare against it.
 */
export const REFUSAL_STATUS: Record<string, string> = {
  invalid_slug: '404',
  unknown_endpoint: '404',
  expired_endpoint: '404',
  no_receiver: '404',
  payload_too_large: '413',
  body_incomplete: '400',
  quota_exceeded: '429',
  sandbox_quota_exceeded: '429',
  capture_store_behind: '503',
  capture_log_failed: '503',
  state_store_unreachable: '503',
  internal: '500',
};
