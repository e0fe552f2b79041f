/**
 * The vocabulary of the provider table. A provider is one entry with one or more fingerprints; a
 * fingerprint says what makes it worth looking at (a header, a query key, or a literal that must
 * occur in the body), what must then hold, and where the event name comes from. All of it is plain
 * data so the table reads like documentation and the engine stays one small interpreter.
 */

/** Where a value comes from. Header names are lower case; JSON paths are dot-separated, array
 * elements by index (`value.0.changeType`). */
export type Source =
  | { header: string }
  | { json: string }
  | { form: string }
  | { query: string }
  /** A form field whose value is JSON (Slack's `payload`, Mandrill's `mandrill_events`). */
  | { formJson: string; path: string }
  /** A claim of the unverified JWT carried in a header (Netlify's JWS). */
  | { jwt: string; claim: string };

/** Tests on a value. Without `absent`, the value must be present; every given test must pass. */
export interface Matcher {
  equals?: string | number | boolean;
  oneOf?: readonly (string | number)[];
  prefix?: string;
  pattern?: RegExp;
  type?: 'string' | 'number' | 'boolean' | 'object' | 'array';
  absent?: true;
}

export type Condition = (Source & Matcher) | { any: readonly Condition[] };

export type EventPart = (
  | Source
  | { literal: string }
  /** The first of these top-level JSON keys that is present (Telegram's update kinds). */
  | { firstKeyOf: readonly string[] }
) & {
  /** Translate the raw value; a value with no entry makes the part missing. */
  map?: Readonly<Record<string, string>>;
  /** A missing optional part is left out instead of failing the alternative. */
  optional?: true;
};

/** One way to name the event: its parts joined with ".", used when `when` holds. */
export interface EventRule {
  when?: readonly Condition[];
  parts: readonly EventPart[];
}

/**
 * What makes a fingerprint worth evaluating. `header` and `query` anchors are indexed by name;
 * `json` and `form` anchors are literals or patterns that must occur in the raw body (checked only
 * for small bodies of that content type, with one combined scan). A body anchor should pin a key
 * *and* its value's shape (`/"subscription"\s*:\s*"projects\//`, not `"subscription"`): a bare key
 * also occurs in ordinary payloads and would make every such capture pay a JSON.parse.
 */
export type Anchor = { header: string } | { query: string } | { json: string | RegExp } | { form: string | RegExp };

export interface Fingerprint {
  on: readonly Anchor[];
  when?: readonly Condition[];
  /** First alternative that yields a name wins; none means event "". */
  event: readonly EventRule[];
}

export interface ProviderEntry {
  /** The value reported as detectedProvider. */
  id: string;
  fingerprints: readonly Fingerprint[];
}

/** What detection sees of a capture. */
export interface DetectInput {
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** UTF-8 text; '' when the body is binary. */
  body: string;
  contentType: string;
  method: string;
  query: Record<string, string | string[]>;
}

/** provider '' = unknown; event '' = unknown. */
export interface Detection {
  provider: string;
  event: string;
}
