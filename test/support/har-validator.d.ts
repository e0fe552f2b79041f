/** har-validator ships no types; the one call the tests use. */
declare module 'har-validator' {
  /** Resolves with the document when it is a valid HAR 1.2 log, rejects with the schema errors otherwise. */
  export function har(data: unknown): Promise<unknown>;
}
