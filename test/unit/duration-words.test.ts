/** A lifetime as the mails, llms.txt and the agent sandbox say it (src/mail/duration-words.ts). */
import { expect, test } from 'bun:test';
import { durationWords } from '../../src/mail/duration-words';

test('whole hours in hours, the rest in minutes, under a minute in seconds', () => {
  expect(durationWords(48 * 3_600_000)).toBe('48 hours');
  expect(durationWords(3_600_000)).toBe('1 hour');
  expect(durationWords(30 * 60_000)).toBe('30 minutes');
  // Not rounded to "2 hours": the link would die half an hour before the mail says.
  expect(durationWords(90 * 60_000)).toBe('90 minutes');
  expect(durationWords(60_000)).toBe('1 minute');
  expect(durationWords(45_000)).toBe('45 seconds');
  expect(durationWords(1_000)).toBe('1 second');
});

test('a lifetime is never said longer than it is', () => {
  // Each was rounded up to the next unit: "2 minutes", "1 minute", "2 seconds", "1 second".
  expect(durationWords(90_000)).toBe('90 seconds');
  expect(durationWords(20_000)).toBe('20 seconds');
  expect(durationWords(61 * 60_000)).toBe('61 minutes');
  expect(durationWords(1_500)).toBe('1 second');
  expect(durationWords(400)).toBe('less than a second');
});
