import { describe, expect, test } from 'bun:test';
import { AppError } from '../../src/errors';
import { MAX_HEADER_FILTERS, MAX_Q_LENGTH, parseLimit, parseSearchCriteria, parseSearchPage, readSearchQuery, type RawSearchQuery } from '../../src/services/search-params';

const NOW = Date.UTC(2024, 2, 10, 12, 0, 0);
const LIMITS = { defaultLimit: 50, maxLimit: 1000, maxOffset: 10_000 };

/** The 400 message for a query, or a failure when it is accepted. */
function refusal(raw: RawSearchQuery): string {
  try {
    parseSearchPage(raw, LIMITS, NOW);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
    return (err as AppError).message;
  }
  throw new Error(`accepted ${JSON.stringify(raw)}`);
}

describe('parseSearchPage', () => {
  test('defaults: limit 50, offset 0, newest first, no filters', () => {
    expect(parseSearchPage({}, LIMITS, NOW)).toEqual({ limit: 50, offset: 0, order: 'desc' });
  });

  test('every parameter, normalised', () => {
    expect(
      parseSearchPage(
        { slug: 'abc', method: 'post', q: 'Invoice', from: '2h', to: '2024-03-10T12:00:00Z', limit: '10', offset: '20', order: 'asc' },
        LIMITS,
        NOW,
      ),
    ).toEqual({ slug: 'abc', method: 'POST', q: 'Invoice', from: NOW - 7_200_000, to: NOW, limit: 10, offset: 20, order: 'asc' });
  });

  test('pinned: true filters, false or empty does not, anything else is a 400', () => {
    expect(parseSearchPage({ pinned: 'true' }, LIMITS, NOW)).toMatchObject({ pinned: true });
    expect(parseSearchPage({ pinned: 'false' }, LIMITS, NOW).pinned).toBeUndefined();
    expect(parseSearchPage({ pinned: '' }, LIMITS, NOW).pinned).toBeUndefined();
    expect(refusal({ pinned: 'yes' })).toStartWith('pinned');
    expect(() => readSearchQuery(new URLSearchParams('pinned=true&pinned=false'))).toThrow(/pinned: was given 2 times/);
  });

  test('limit above the cap is capped; empty values mean "not given"', () => {
    expect(parseSearchPage({ limit: '5000' }, LIMITS, NOW).limit).toBe(1000);
    expect(parseSearchPage({ limit: '', offset: '', order: '', q: '', method: '', slug: '' }, LIMITS, NOW)).toEqual({
      limit: 50,
      offset: 0,
      order: 'desc',
    });
  });

  test('a limit is plain decimal digits on every route (parseLimit): not a space, sign, point, exponent or 0x', () => {
    expect(parseLimit(undefined, 1000)).toBeUndefined();
    expect(parseLimit('', 1000)).toBeUndefined();
    expect(parseLimit('05', 1000)).toBe(5);
    expect(parseLimit('5000', 1000)).toBe(5000);
    for (const raw of [' 5', '5 ', '+5', '1.0', '1e3', '0x10', '0', '１']) {
      expect(() => parseLimit(raw, 1000)).toThrow('limit: must be an integer of at least 1 (at most 1000 are returned)');
      expect(refusal({ limit: raw })).toBe('limit: must be an integer of at least 1 (at most 1000 are returned)');
    }
    const agent = (() => {
      try {
        return parseLimit('1e3', 1000, 'invalid_request');
      } catch (e) {
        return e;
      }
    })();
    expect(agent).toMatchObject({ code: 'invalid_request', message: 'limit: must be an integer of at least 1 (at most 1000 are returned)' });
  });

  test('each bad value is a 400 naming its parameter', () => {
    expect(refusal({ order: 'newest' })).toStartWith('order: must be asc or desc');
    expect(refusal({ order: 'DESC' })).toStartWith('order');
    // Named as a route schema's refusal names its field (src/schema-words.ts).
    for (const limit of ['-1', '0', 'ten', '1.5', '1e3', ' ']) expect(refusal({ limit })).toBe('limit: must be an integer of at least 1 (at most 1000 are returned)');
    for (const offset of ['-1', 'x', '2.5', '10001']) expect(refusal({ offset })).toBe('offset: must be an integer from 0 to 10000 (to go deeper, narrow the search with from and to)');
    expect(refusal({ from: 'yesterday' })).toStartWith('from: must be');
    expect(refusal({ to: '2024-02-30' })).toStartWith('to: must be');
    expect(refusal({ from: '1h', to: '2h' })).toMatch(/^from: .* is after to/);
    expect(refusal({ method: 'GET POST' })).toStartWith('method: must be');
    expect(refusal({ method: 'G\u00e9T' })).toStartWith('method: must be');
    expect(refusal({ q: 'x'.repeat(MAX_Q_LENGTH + 1) })).toStartWith('q: must be at most');
  });

  test('a q of exactly the maximum length, or with quotes and wildcards, is kept as is', () => {
    const long = 'y'.repeat(MAX_Q_LENGTH);
    expect(parseSearchPage({ q: long }, LIMITS, NOW).q).toBe(long);
    expect(parseSearchPage({ q: "it's 100%_" }, LIMITS, NOW).q).toBe("it's 100%_");
  });
});

describe('parseSearchCriteria', () => {
  test('header: name:value, name: or name; the name lower-cased, the value kept but for the spaces around it', () => {
    const headers = (...header: string[]) => parseSearchCriteria({ header }, NOW).headers;
    expect(headers('X-GitHub-Event: push')).toEqual([{ name: 'x-github-event', value: 'push' }]);
    expect(headers('x-github-event:\tPush \t')).toEqual([{ name: 'x-github-event', value: 'Push' }]);
    expect(headers('stripe-signature', 'Stripe-Signature:', 'x-a:  ')).toEqual([
      { name: 'stripe-signature', value: '' },
      { name: 'stripe-signature', value: '' },
      { name: 'x-a', value: '' },
    ]);
    // Split at the first colon: the value may hold more, and any character.
    expect(headers(`x-note:a: b:c`, `x-q:it's "%_\\ é`)).toEqual([
      { name: 'x-note', value: 'a: b:c' },
      { name: 'x-q', value: `it's "%_\\ é` },
    ]);
    // Empty means not given.
    expect(headers('', '')).toBeUndefined();
    expect(headers(...Array.from({ length: MAX_HEADER_FILTERS }, (_, i) => `x-${i}:v`))?.length).toBe(MAX_HEADER_FILTERS);
  });

  test('a bad header is a 400 naming it', () => {
    for (const header of [':push', ' x-a:b', 'x a:b', 'x-a=b', '"x-a":b', 'é:b', `x-a:${'v'.repeat(MAX_Q_LENGTH)}`]) {
      expect(refusal({ header: [header] })).toStartWith('header: must be');
    }
    expect(refusal({ header: Array.from({ length: MAX_HEADER_FILTERS + 1 }, (_, i) => `x-${i}`) })).toStartWith(
      `header: may be given at most ${MAX_HEADER_FILTERS} times`,
    );
  });

  test('ignores limit, offset and order (count takes none)', () => {
    expect(parseSearchCriteria({ limit: '-1', offset: 'x', order: 'sideways', method: 'get' }, NOW)).toEqual({ method: 'GET' });
  });
});

describe('readSearchQuery', () => {
  test('takes the search parameters, decoded, and nothing else', () => {
    expect(readSearchQuery(new URLSearchParams('q=a%20b&from=2024-03-10T12%3A00%3A00%2B01%3A00&cursor=x&limit=5'))).toEqual({
      q: 'a b',
      from: '2024-03-10T12:00:00+01:00',
      limit: '5',
    });
  });

  test('a parameter given twice is refused by name', () => {
    expect(() => readSearchQuery(new URLSearchParams('order=asc&order=desc'))).toThrow(/^order: was given 2 times/);
    expect(() => readSearchQuery(new URLSearchParams('q=&q='))).toThrow(/^q: was given/);
  });

  test('header may repeat: every value, in order', () => {
    expect(readSearchQuery(new URLSearchParams('header=x-a%3A1&q=z&header=X-B%3A%20a%26b'))).toEqual({ q: 'z', header: ['x-a:1', 'X-B: a&b'] });
  });
});
