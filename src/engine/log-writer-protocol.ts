/** The shared-memory protocol between the capture log and its write thread (log-writer.ts). */

export const LOG_WRITE = {
  /** Int32 slots of the control array. */
  REQUEST: 0,
  DONE: 1,
  FD: 2,
  LENGTH: 3,
  ERROR: 4,
  /** Writes timed so far (wraps with the requests); write k's time is in slot k % TIMES of the times array. */
  TIMED: 5,
  /** Byte offset of the Float64 write position (after the Int32 slots, 8-aligned). */
  POSITION_BYTE: 24,
  CONTROL_BYTES: 32,
  /** Write times kept (ms, Float64), the most recent ones. */
  TIMES: 1024,
  /** A request value that ends the thread. Requests count 1, 2, … and wrap before reaching 2^31. */
  STOP: -1,
} as const;

/** Error codes a write can fail with, by index (0: no error); anything else is the last. */
export const WRITE_ERRORS = ['', 'ENOSPC', 'EDQUOT', 'EIO', 'EFBIG', 'EROFS', 'EBADF', 'EINTR', 'EUNKNOWN'] as const;

export function errorIndex(err: unknown): number {
  const code = (err as { code?: unknown } | null)?.code;
  const i = typeof code === 'string' ? WRITE_ERRORS.indexOf(code as (typeof WRITE_ERRORS)[number]) : -1;
  return i > 0 ? i : WRITE_ERRORS.length - 1;
}
