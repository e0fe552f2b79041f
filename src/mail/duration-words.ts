/**
 * A lifetime in words: "48 hours", "30 minutes", "45 seconds", for the reset and verification
 * mails, llms.txt and the agent API's refusals. Whole hours are said in hours, whole minutes in
 * minutes, anything else in seconds, so a lifetime is never said longer than it is: a 90-minute
 * link is not "2 hours", nor a 90-second one "2 minutes" (nor 20 seconds "1 minute").
 *
 * @example
 * durationWords(30 * 60_000); // "30 minutes"
 */
export function durationWords(ms: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return plural(ms / 3_600_000, 'hour');
  if (ms >= 60_000 && ms % 60_000 === 0) return plural(ms / 60_000, 'minute');
  // Rounded down, never up: the lifetime ends no sooner than said.
  return ms < 1000 ? 'less than a second' : plural(Math.floor(ms / 1000), 'second');
}
