/**
 * The interpreter for the provider table. `compile` indexes every fingerprint by its anchor once at
 * start; `detect` then costs one Map lookup per request header when nothing matches, plus, for small
 * JSON or form bodies only, one scan for the body anchors. The body is parsed at most once, and only
 * when a fingerprint that was actually triggered needs a field from it.
 */
import type {
  Anchor,
  Condition,
  DetectInput,
  Detection,
  EventPart,
  EventRule,
  Fingerprint,
  Matcher,
  ProviderEntry,
  Source,
} from './types';
import { isRecord } from '../../unknown';

/** Bodies larger than this are never parsed nor scanned. */
export const BODY_CAP = 256 * 1024;
/**
 * Body anchors are looked for in the head and the tail of the body only: top-level keys of the
 * senders we know sit there (Pub/Sub puts `subscription` after the message data), and the scan then
 * costs the same for a 3 KB and a 250 KB body.
 */
const SCAN_HEAD = 2048;
const SCAN_TAIL = 512;
/** Longer event names are cut; they come from sender-controlled fields. */
const EVENT_MAX = 200;
/**
 * Control characters (C0, DEL, C1) and bidirectional overrides, which no sender's event name
 * holds: in a name shown by terminals and list views they could recolour, retitle or reorder what
 * is shown. Each becomes U+FFFD, so the name still shows that something was there. The body keeps
 * them (its bytes are stored as sent); only this derived field is cleaned.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** An event name as stored: cut to EVENT_MAX, unprintable characters replaced. */
function cleanEvent(name: string): string {
  const cut = name.length > EVENT_MAX ? name.slice(0, EVENT_MAX) : name;
  UNPRINTABLE.lastIndex = 0;
  return UNPRINTABLE.test(cut) ? cut.replace(UNPRINTABLE, '\ufffd') : cut;
}

export interface Compiled {
  /** Position in the table: lower wins when several fingerprints are triggered. */
  order: number;
  provider: string;
  fingerprint: Fingerprint;
}

export interface DetectorIndex {
  byHeader: Map<string, Compiled[]>;
  byQuery: Map<string, Compiled[]>;
  json: Compiled[];
  jsonGate: RegExp | null;
  form: Compiled[];
  formGate: RegExp | null;
}

/** Builds the lookup structures; throws on a malformed table so a bad entry fails at start-up. */
export function compile(entries: readonly ProviderEntry[]): DetectorIndex {
  const index: DetectorIndex = {
    byHeader: new Map(),
    byQuery: new Map(),
    json: [],
    jsonGate: null,
    form: [],
    formGate: null,
  };
  const jsonHints = new Set<string>();
  const formHints = new Set<string>();
  // Body anchors become one alternation, so each is kept as regexp source.
  const ids = new Set<string>();
  let order = 0;
  for (const entry of entries) {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(entry.id)) throw new Error(`provider id "${entry.id}" is not kebab-case`);
    if (ids.has(entry.id)) throw new Error(`provider "${entry.id}" appears twice`);
    ids.add(entry.id);
    if (entry.fingerprints.length === 0) throw new Error(`provider "${entry.id}" has no fingerprint`);
    for (const fingerprint of entry.fingerprints) {
      const compiled: Compiled = { order: order++, provider: entry.id, fingerprint };
      if (fingerprint.on.length === 0) throw new Error(`a fingerprint of "${entry.id}" has no anchor`);
      for (const anchor of fingerprint.on) addAnchor(index, compiled, anchor, jsonHints, formHints);
      checkRegExps(entry.id, fingerprint);
    }
  }
  index.jsonGate = gate(jsonHints);
  index.formGate = gate(formHints);
  return index;
}

function addAnchor(
  index: DetectorIndex,
  compiled: Compiled,
  anchor: Anchor,
  jsonHints: Set<string>,
  formHints: Set<string>,
): void {
  const push = (map: Map<string, Compiled[]>, key: string) => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [compiled]);
    else if (!list.includes(compiled)) list.push(compiled);
  };
  if ('header' in anchor) {
    if (anchor.header !== anchor.header.toLowerCase()) {
      throw new Error(`header anchor "${anchor.header}" of "${compiled.provider}" must be lower case`);
    }
    push(index.byHeader, anchor.header);
  } else if ('query' in anchor) {
    push(index.byQuery, anchor.query);
  } else if ('json' in anchor) {
    jsonHints.add(bodyPattern(compiled.provider, anchor.json));
    if (!index.json.includes(compiled)) index.json.push(compiled);
  } else {
    formHints.add(bodyPattern(compiled.provider, anchor.form));
    if (!index.form.includes(compiled)) index.form.push(compiled);
  }
}

function checkRegExps(provider: string, fingerprint: Fingerprint): void {
  const visit = (c: Condition): void => {
    if ('any' in c) c.any.forEach(visit);
    else if ('pattern' in c && c.pattern && (c.pattern.global || c.pattern.sticky)) {
      throw new Error(`a pattern of "${provider}" is global or sticky, which makes test() stateful`);
    }
  };
  fingerprint.when?.forEach(visit);
  for (const rule of fingerprint.event) rule.when?.forEach(visit);
}

/** A body anchor as regexp source: literals escaped, patterns taken as written (no flags). */
function bodyPattern(provider: string, anchor: string | RegExp): string {
  if (typeof anchor === 'string') return anchor.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (anchor.flags !== '') throw new Error(`a body anchor of "${provider}" has flags; they would be lost in the combined scan`);
  return `(?:${anchor.source})`;
}

function gate(hints: Set<string>): RegExp | null {
  if (hints.size === 0) return null;
  const sources = [...hints];
  // JSON anchors all begin with the quote of a key. Factoring it out lets the scan reject every
  // other position on one character compare, which cuts the scan by about a third.
  const rests = sources.map((h) => (h.startsWith('(?:"') ? `(?:${h.slice(4)}` : h.startsWith('"') ? h.slice(1) : null));
  if (rests.every((r) => r !== null && !/^[*+?{]/.test(r.replace(/^\(\?:/, '')))) return new RegExp(`"(?:${rests.join('|')})`);
  return new RegExp(sources.join('|'));
}

/** Runs the table against one request. */
export function detect(index: DetectorIndex, input: DetectInput): Detection {
  let triggered: Compiled[] | undefined;
  const headers = input.headers;
  for (const name in headers) {
    const hit = index.byHeader.get(name);
    if (hit !== undefined) triggered = triggered === undefined ? hit : triggered.concat(hit);
  }
  for (const key in input.query) {
    const hit = index.byQuery.get(key);
    if (hit !== undefined) triggered = triggered === undefined ? hit : triggered.concat(hit);
  }

  let request: RequestView | undefined;
  if (triggered !== undefined) {
    request = new RequestView(input);
    const found = firstMatch(request, ordered(triggered));
    if (found !== undefined) return found;
  }

  const candidates = bodyCandidates(index, input.body, input.contentType);
  if (candidates !== undefined) {
    const found = firstMatch(request ?? new RequestView(input), candidates);
    if (found !== undefined) return found;
  }
  return { provider: '', event: '' };
}

/**
 * The body-shape fingerprints worth evaluating for this body, or undefined when no body anchor
 * occurs in it. Only a hit costs a parse, so this is what keeps detection cheap for ordinary JSON.
 */
export function bodyCandidates(index: DetectorIndex, body: string, contentType: string): Compiled[] | undefined {
  if (body.length === 0 || body.length > BODY_CAP) return undefined;
  if (index.jsonGate !== null && isJson(contentType)) return scan(index.jsonGate, body) ? index.json : undefined;
  if (index.formGate !== null && isForm(contentType)) return scan(index.formGate, body) ? index.form : undefined;
  return undefined;
}

function scan(gate: RegExp, body: string): boolean {
  if (body.length <= SCAN_HEAD + SCAN_TAIL) return gate.test(body);
  return gate.test(body.slice(0, SCAN_HEAD)) || gate.test(body.slice(-SCAN_TAIL));
}

/** Table order, each fingerprint once (several of its anchors may have fired). */
function ordered(list: Compiled[]): Compiled[] {
  if (list.length < 2) return list;
  const sorted = [...list].sort((a, b) => a.order - b.order);
  return sorted.filter((c, i) => i === 0 || sorted[i - 1] !== c);
}

function firstMatch(request: RequestView, list: readonly Compiled[]): Detection | undefined {
  for (const { provider, fingerprint } of list) {
    if (fingerprint.when !== undefined && !fingerprint.when.every((c) => holds(request, c))) continue;
    return { provider, event: eventName(request, fingerprint.event) };
  }
  return undefined;
}

function isJson(contentType: string): boolean {
  return /json/i.test(contentType);
}

function isForm(contentType: string): boolean {
  return /application\/x-www-form-urlencoded/i.test(contentType);
}

/** Lazily parsed views of one request; each is computed at most once. */
class RequestView {
  private jsonParsed = false;
  private jsonValue: unknown;
  private derived: Map<string, unknown> | undefined;
  private fields: Map<string, string | undefined> | undefined;

  constructor(readonly input: DetectInput) {}

  json(): unknown {
    if (!this.jsonParsed) {
      this.jsonParsed = true;
      const { body, contentType } = this.input;
      if (body.length > 0 && body.length <= BODY_CAP && isJson(contentType)) {
        try {
          this.jsonValue = JSON.parse(body);
        } catch {
          this.jsonValue = undefined;
        }
      }
    }
    return this.jsonValue;
  }

  /**
   * The string value of top-level member `key` when it is the first or the last member of the
   * body's object, read with one anchored match on the body's head or tail instead of a parse;
   * undefined otherwise (the caller then parses). Senders put their event field at an edge more
   * often than not (GitHub's `action` first, Stripe's `type` last), and a parse of a 1 KB body
   * is most of what detection costs on the capture path. A member anchored at `{` or before the
   * closing `}` of the body can only belong to the root object; values with escapes fall back.
   */
  edgeString(key: string): string | undefined {
    if (this.jsonParsed) return undefined;
    const { body, contentType } = this.input;
    if (body.length === 0 || body.length > BODY_CAP || !isJson(contentType)) return undefined;
    const [head, tail] = edgePatterns(key);
    const first = head.exec(body.length > EDGE_WINDOW ? body.slice(0, EDGE_WINDOW) : body);
    if (first?.[1] !== undefined) return first[1];
    const last = tail.exec(body.length > EDGE_WINDOW ? body.slice(-EDGE_WINDOW) : body);
    return last?.[1];
  }

  /**
   * The first value of a urlencoded form field. Looked up in place rather than by building
   * URLSearchParams: detection reads one or two fields of bodies that may have dozens.
   */
  form(field: string): string | undefined {
    this.fields ??= new Map();
    if (this.fields.has(field)) return this.fields.get(field);
    const value = this.findField(field);
    this.fields.set(field, value);
    return value;
  }

  private findField(field: string): string | undefined {
    const { body, contentType } = this.input;
    if (body.length === 0 || body.length > BODY_CAP || !isForm(contentType)) return undefined;
    const key = `${field}=`;
    // Values are percent-encoded, so "&name=" can only be a field boundary.
    let at = body.startsWith(key) ? 0 : body.indexOf(`&${key}`);
    if (at < 0) return undefined;
    if (at > 0) at += 1;
    const start = at + key.length;
    const end = body.indexOf('&', start);
    const raw = body.slice(start, end < 0 ? body.length : end).replace(/\+/g, ' ');
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  }

  /** A form field holding JSON, parsed once. */
  formJson(field: string): unknown {
    return this.memo(`formJson:${field}`, () => {
      const text = this.form(field);
      if (text === undefined) return undefined;
      try {
        return JSON.parse(text);
      } catch {
        return undefined;
      }
    });
  }

  /** The payload of a JWT-shaped header, decoded without verification (detection only). */
  jwtPayload(header: string): unknown {
    return this.memo(`jwt:${header}`, () => {
      const token = this.input.headers[header];
      if (typeof token !== 'string') return undefined;
      const parts = token.split('.');
      const payload = parts[1];
      if (parts.length !== 3 || payload === undefined || payload.length > 8192) return undefined;
      try {
        return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        return undefined;
      }
    });
  }

  private memo(key: string, compute: () => unknown): unknown {
    this.derived ??= new Map();
    if (this.derived.has(key)) return this.derived.get(key);
    const value = compute();
    this.derived.set(key, value);
    return value;
  }
}

/** How much of the head and the tail an edge match looks at; event names are far shorter. */
const EDGE_WINDOW = 300;
const edges = new Map<string, [RegExp, RegExp]>();

function edgePatterns(key: string): [RegExp, RegExp] {
  let found = edges.get(key);
  if (found === undefined) {
    const k = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const value = '"([^"\\\\\\u0000-\\u001f]{1,200})"';
    found = [new RegExp(`^\\s*\\{\\s*"${k}"\\s*:\\s*${value}\\s*[,}]`), new RegExp(`[{,]\\s*"${k}"\\s*:\\s*${value}\\s*\\}\\s*$`)];
    edges.set(key, found);
  }
  return found;
}

const paths = new Map<string, string[]>();

function walk(value: unknown, path: string): unknown {
  let keys = paths.get(path);
  if (keys === undefined) {
    keys = path.split('.');
    paths.set(path, keys);
  }
  let current = value;
  for (const key of keys) {
    if (Array.isArray(current)) {
      current = /^\d+$/.test(key) ? current[Number(key)] : undefined;
    } else if (typeof current === 'object' && current !== null && Object.hasOwn(current, key)) {
      current = (current as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return current;
}

function read(request: RequestView, source: Source): unknown {
  if ('header' in source) {
    const value = request.input.headers[source.header];
    return typeof value === 'string' ? value : undefined;
  }
  if ('json' in source) {
    // A top-level string member at either edge of the body is read without a parse.
    if (!source.json.includes('.')) {
      const edge = request.edgeString(source.json);
      if (edge !== undefined) return edge;
    }
    return walk(request.json(), source.json);
  }
  if ('formJson' in source) return walk(request.formJson(source.formJson), source.path);
  if ('form' in source) return request.form(source.form);
  if ('query' in source) {
    const value = request.input.query[source.query];
    return Array.isArray(value) ? value[0] : value;
  }
  return walk(request.jwtPayload(source.jwt), source.claim);
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value;
}

function matches(value: unknown, m: Matcher): boolean {
  if (m.absent) return value === undefined;
  if (value === undefined) return false;
  if (m.type !== undefined && kindOf(value) !== m.type) return false;
  if (m.equals !== undefined && value !== m.equals) return false;
  if (m.oneOf !== undefined && !((typeof value === 'string' || typeof value === 'number') && m.oneOf.includes(value))) {
    return false;
  }
  if (m.prefix !== undefined && !(typeof value === 'string' && value.startsWith(m.prefix))) return false;
  if (m.pattern !== undefined && !(typeof value === 'string' && m.pattern.test(value))) return false;
  return true;
}

function holds(request: RequestView, condition: Condition): boolean {
  if ('any' in condition) return condition.any.some((c) => holds(request, c));
  return matches(read(request, condition), condition);
}

function partValue(request: RequestView, part: EventPart): string | undefined {
  let raw: unknown;
  if ('literal' in part) raw = part.literal;
  else if ('firstKeyOf' in part) {
    const body = request.json();
    raw = isRecord(body) ? part.firstKeyOf.find((key) => Object.hasOwn(body, key)) : undefined;

  } else raw = read(request, part);

  let text: string | undefined;
  if (typeof raw === 'string') text = raw;
  else if (typeof raw === 'number' || typeof raw === 'boolean') text = String(raw);
  if (text === undefined || text === '') return undefined;
  if (part.map !== undefined) return Object.hasOwn(part.map, text) ? part.map[text] : undefined;
  return text;
}

function eventName(request: RequestView, rules: readonly EventRule[]): string {
  for (const rule of rules) {
    if (rule.when !== undefined && !rule.when.every((c) => holds(request, c))) continue;
    let name = '';
    let complete = true;
    for (const part of rule.parts) {
      const value = partValue(request, part);
      if (value === undefined) {
        if (part.optional) continue;
        complete = false;
        break;
      }
      name = name === '' ? value : `${name}.${value}`;
    }
    if (complete && name !== '') return cleanEvent(name);
  }
  return '';
}
