/**
 * Refusing a body that is too large without breaking the sender's connection: shared by the
 * receiver (MAX_BODY_BYTES) and the API's request guards (its own limit).
 *
 * Some HTTP stacks (Python's http.client, under requests and urllib3, and Node's http) write the
 * whole body before they read the answer: if the server closes while bytes are still coming, the
 * kernel resets the connection and the client reports a broken pipe or a reset instead of the 413
 * (measured: from about 3 MB of body on loopback). So a refused body is still read, and thrown
 * away, up to the drain limit; beyond it the connection is closed unread (docs/security.md
 * "Limits"). Reading costs bandwidth only, never memory, and only on a refusal.
 */

/** How much of a refused body is still read (and thrown away) so the sender sees the refusal. */
export const drainLimit = (max: number): number => Math.max(16 * 1024 * 1024, 4 * max);

/**
 * Whether a refusal of a body of `declared` bytes (Content-Length) must close the connection.
 * Within the drain limit Bun discards the unread rest itself and keeps the connection.
 */
export const closesAfterRefusal = (declared: number, max: number): boolean => declared > drainLimit(max);

/** Whether the sender asked for the connection to end after this exchange (`Connection: close`). */
export const asksToClose = (request: Request): boolean => /(?:^|,)\s*close\s*(?:,|$)/i.test(request.headers.get('connection') ?? '');

/**
 * Readies the refusal of a body declared `declared` bytes long, over `max`; true when the
 * connection must close (past the drain limit, or the body could not be read). Within the drain
 * limit Bun discards the unread rest itself and keeps the connection, but not when the sender
 * asked to close it (`Connection: close`, which Python's urllib always sends): Bun then closes as
 * soon as the answer is written, and the bytes still arriving make the kernel reset the
 * connection, so such a sender saw a broken pipe instead of the 413. Its body is read and thrown
 * away first.
 */
export async function readyRefusal(request: Request, declared: number, max: number): Promise<boolean> {
  if (closesAfterRefusal(declared, max)) return true;
  if (!asksToClose(request) || !request.body) return false;
  try {
    return !(await readBounded(request.body, 0, drainLimit(max))).whole;
  } catch {
    return true;
  }
}

export interface BoundedBody {
  /** The body, when it was at most `max` bytes; empty otherwise. */
  bytes: Uint8Array[];
  /** Bytes read, up to about `drain`. */
  total: number;
  /** False when reading stopped at the drain limit: the connection must then be closed. */
  whole: boolean;
}

/**
 * Reads a body sent without a declared length (chunked), counting as it goes: past `max` it keeps
 * nothing and reads on, and past `drain` it stops reading.
 */
export async function readBounded(body: ReadableStream<Uint8Array>, max: number, drain = drainLimit(max)): Promise<BoundedBody> {
  const bytes: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes, total, whole: true };
    total += value.length;
    if (total > max) {
      bytes.length = 0;
      if (total > drain) {
        await reader.cancel();
        return { bytes, total, whole: false };
      }
      continue;
    }
    bytes.push(value);
  }
}
