/**
 * A link's lifetime in a mail's words: "48 hours", "30 minutes", "45 seconds". Whole hours are
 * said in hours, anything else in minutes (seconds under a minute), so a 90-minute link is not
 * rounded to "2 hours".
 *
 * @example
 * durationWords(30 * 60_000); // "30 minutes"
 */
export function durationWords(ms: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return plural(ms / 3_600_000, 'hour');
  if (ms >= 60_000) return plural(Math.round(ms / 60_000), 'minute');
  return plural(Math.max(1, Math.round(ms / 1000)), 'second');
}
