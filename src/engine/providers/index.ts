/**
 * Best-effort sender detection for captures (SPEC 2.4 detectedProvider / detectedEvent). Pure and
 * synchronous; safe to call on the capture hot path.
 *
 * @example
 * const { provider, event } = detectProvider({
 *   headers: capture.headers, body: capture.bodyEncoding === 'utf8' ? capture.body : '',
 *   contentType: capture.contentType, method: capture.method, query: capture.queryParams,
 * });
 */
import { compile, detect } from './engine';
import { PROVIDERS } from './rules';
import type { DetectInput, Detection } from './types';

export type { DetectInput, Detection } from './types';

const index = compile(PROVIDERS);

/** Every provider id detection can report, in table order. */
export const KNOWN_PROVIDERS: readonly string[] = PROVIDERS.map((p) => p.id);

/** Guesses the sender and event of a capture; `''` for whatever it cannot tell. */
export function detectProvider(input: DetectInput): Detection {
  return detect(index, input);
}
