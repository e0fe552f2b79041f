/**
 * The dashboard's display helpers, as plain functions: the URL as people read it (decoded, with
 * what would mislead kept escaped) and the name "Download body" gives the file. The browser side
 * is in test/browser/dashboard-audit.test.ts and dashboard-reading.test.ts.
 */
import { describe, expect, test } from 'bun:test';
import { MARKED_LIMIT, hasBidiControls, rawParts } from '../../web/src/lib/bidi';
import { bodyExtension, droppedBodyNotice } from '../../web/src/lib/body';
import { shownJson, shownText } from '../../web/src/lib/json-shown';
import { captureUrl, readableCaptureQuery, readablePath, readableQuery, readableRows, readableUrl, readableValue } from '../../web/src/lib/url';

describe('readablePath', () => {
  test('decodes UTF-8 escapes, keeps malformed ones and the ones that split a URL as sent', () => {
    expect(readablePath('/caf%C3%A9/%E2%9C%93')).toBe('/café/✓');
    expect(readablePath('/%zz/%E2%9C/%C3/%FF/%')).toBe('/%zz/%E2%9C/%C3/%FF/%');
    expect(readablePath('/a%2Fb%3Fc%23d%25e')).toBe('/a%2Fb%3Fc%23d%25e');
    expect(readablePath('/a%20b/%41')).toBe('/a b/A');
  });
  test('direction-changing, invisible and control characters stay visible as escapes', () => {
    expect(readablePath('/%E2%80%AEevil')).toBe('/%E2%80%AEevil');
    expect(readablePath('/\u202Eraw')).toBe('/%E2%80%AEraw');
    expect(readablePath('/%E2%81%A6x%E2%81%A9/%E2%80%8B/%00/%0A/%C2%A0')).toBe('/%E2%81%A6x%E2%81%A9/%E2%80%8B/%00/%0A/%C2%A0');
    // Right-to-left letters are text like any other (the page isolates the URL).
    expect(readablePath('/%D7%A9%D7%9C%D7%95%D7%9D')).toBe('/שלום');
  });
});

describe('readableQuery', () => {
  test('names and values decoded; what would change the split stays escaped', () => {
    expect(readableQuery({ u: '✓', 'arr[]': ['1', '2'] })).toBe('?u=✓&arr[]=1&arr[]=2');
    expect(readableQuery({ 'a=b': 'c&d', e: 'f#g', plus: 'a+b', sp: 'a b' })).toBe('?a%3Db=c%26d&e=f%23g&plus=a%2Bb&sp=a b');
    expect(readableQuery({ bad: '%zz', pct: '%41' })).toBe('?bad=%zz&pct=%2541');
    expect(readableQuery({ rlo: '\u202Eevil', nul: 'a\0b' })).toBe('?rlo=%E2%80%AEevil&nul=a%00b');
    expect(readableQuery({})).toBe('');
  });
  test('only for reading: the URL to send stays encoded', () => {
    const c = { path: '/caf%C3%A9', queryParams: { u: '✓' } };
    expect(readableUrl('http://h/w/s', c)).toBe('http://h/w/s/café?u=✓');
    expect(captureUrl('http://h/w/s', c)).toBe('http://h/w/s/caf%C3%A9?u=%E2%9C%93');
  });
});

describe('readableCaptureQuery', () => {
  test('the query as sent, decoded where safe: order, repeats, bare names and bad escapes as sent', () => {
    const queryParams = { y: ' a', a: ['1', '2'], b: '', c: '', d: '%zz' };
    expect(readableCaptureQuery({ query: 'y=%20a&a=1&a=2&b&c=&d=%zz', queryParams })).toBe('?y= a&a=1&a=2&b&c=&d=%zz');
    expect(readableCaptureQuery({ query: '2=x&b=1', queryParams: { 2: 'x', b: '1' } })).toBe('?2=x&b=1');
    expect(readableCaptureQuery({ query: 'a%3Db=c%26d&plus=a%2Bb&sp=a+b&u=%E2%9C%93&pct=%2541&bad=%FF', queryParams: {} })).toBe(
      '?a%3Db=c%26d&plus=a%2Bb&sp=a+b&u=✓&pct=%2541&bad=%FF',
    );
    expect(readableCaptureQuery({ query: 'rlo=%E2%80%AEevil&nul=%00', queryParams: {} })).toBe('?rlo=%E2%80%AEevil&nul=%00');
    expect(readableCaptureQuery({ query: '', queryParams: {} })).toBe('');
    // Stored before the raw query was kept: its parameters.
    expect(readableCaptureQuery({ queryParams })).toBe('?y= a&a=1&a=2&b=&c=&d=%zz');
    expect(readableUrl('http://h/w/s', { path: '/p', query: 'b&a=%C3%A9', queryParams: { b: '', a: 'é' } })).toBe('http://h/w/s/p?b&a=é');
  });
});

describe('bodyExtension', () => {
  const ext = (contentType: string, bodyEncoding: 'utf8' | 'base64' = 'utf8') => bodyExtension({ contentType, bodyEncoding });
  test('by media type, parameters and case ignored', () => {
    expect(ext('application/json; charset=utf-8')).toBe('json');
    expect(ext('Application/JSON')).toBe('json');
    expect(ext('application/vnd.github+json')).toBe('json');
    expect(ext('text/plain')).toBe('txt');
    expect(ext('text/x-anything')).toBe('txt');
    expect(ext('text/html')).toBe('html');
    expect(ext('application/soap+xml')).toBe('xml');
    expect(ext('text/csv')).toBe('csv');
    expect(ext('application/x-www-form-urlencoded')).toBe('txt');
    expect(ext('multipart/form-data; boundary=x')).toBe('txt');
    expect(ext('multipart/form-data; boundary=x', 'base64')).toBe('bin');
    expect(ext('image/png', 'base64')).toBe('png');
    expect(ext('image/jpeg', 'base64')).toBe('jpg');
    expect(ext('application/pdf', 'base64')).toBe('pdf');
  });
  test('bin when missing, unknown or malformed', () => {
    expect(ext('')).toBe('bin');
    expect(ext('', 'base64')).toBe('bin');
    expect(ext('application/octet-stream', 'base64')).toBe('bin');
    expect(ext('application/x-unknown')).toBe('bin');
    expect(ext('../../etc/passwd')).toBe('bin');
  });
});

describe('droppedBodyNotice', () => {
  const get = (headers: Record<string, string>, method = 'GET', body = '') => droppedBodyNotice({ method, body, headers });
  test('a GET or HEAD stored empty while its headers declare a body says so', () => {
    expect(get({ 'content-length': '11' })).toBe(
      "This GET request declared a body of 11 bytes (content-length: 11); hookcap's runtime does not receive bodies of GET requests, so none was captured.",
    );
    expect(get({ 'content-length': '1' }, 'HEAD')).toContain('declared a body of 1 byte (content-length: 1)');
    expect(get({ 'transfer-encoding': 'chunked' })).toContain('declared a body (transfer-encoding: chunked)');
  });
  test('nothing to say otherwise', () => {
    expect(get({})).toBeNull();
    expect(get({ 'content-length': '0' })).toBeNull();
    expect(get({ 'content-length': 'x' })).toBeNull();
    expect(get({ 'content-length': '11' }, 'POST')).toBeNull();
    expect(get({ 'content-length': '11' }, 'GET', 'hello world')).toBeNull();
  });
});

describe('readableValue and readableRows', () => {
  test('percent-escape what hides or reorders a decoded value, and nothing else', () => {
    expect(readableValue('\u202Efdp.exe')).toBe('%E2%80%AEfdp.exe');
    expect(readableValue('a\u200Bb\u00A0c')).toBe('a%E2%80%8Bb%C2%A0c');
    expect(readableValue('café ✓ שלום 😀 %41 a+b')).toBe('café ✓ שלום 😀 %41 a+b');
    expect(readableValue('line\r\nnext\tcol')).toBe('line\r\nnext\tcol');
    expect(readableValue('\u0000\u001b[31m')).toBe('%00%1B[31m');
    expect(readableRows([['k\u202E', 'v\u2066']])).toEqual([['k%E2%80%AE', 'v%E2%81%A6']]);
  });
});

describe('shownJson', () => {
  test('writes hidden characters of keys and strings as JSON escapes, in the same order', () => {
    const shown = shownJson({ b: '\u202Eevil', ['k\u200By']: [1, 'x\uFEFF', { n: null }], lines: 'one\ntwo', 2: 'two' });
    expect(shown as unknown).toEqual({ 2: 'two', b: '\\u202Eevil', ['k\\u200By']: [1, 'x\\uFEFF', { n: null }], lines: 'one\ntwo' });
    expect(Object.keys(shown)).toEqual(['2', 'b', 'k\\u200By', 'lines']);
    expect(shownText('\u{E0001}tag')).toBe('\\uDB40\\uDC01tag');
  });

  test('the same object when nothing needs escaping, and unchanged where escaping would merge two keys', () => {
    const plain = { a: [1, { b: 'c' }], d: 'é ✓' };
    expect(shownJson(plain)).toBe(plain);
    const clash = { 'a\u202E': 1, 'a\\u202E': 2 };
    expect(shownJson(clash)).toBe(clash);
  });

  test('a body nested deeper than the stack allows is drawn as parsed', () => {
    let deep: unknown = '\u202E';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(shownJson(deep)).toBe(deep);
  });
});

describe('rawParts (the Raw view)', () => {
  test('each bidi control becomes a marker; the text around it is kept as it is', () => {
    expect(hasBidiControls('plain \u200B text')).toBe(false); // zero-width, but reorders nothing
    expect(rawParts('a\u202Efdp.exe \u2066x\u2069\u200E\u200F\u061C\u202A')).toEqual([
      'a',
      { marker: '⟨U+202E⟩' },
      'fdp.exe ',
      { marker: '⟨U+2066⟩' },
      'x',
      { marker: '⟨U+2069⟩' },
      { marker: '⟨U+200E⟩' },
      { marker: '⟨U+200F⟩' },
      { marker: '⟨U+061C⟩' },
      { marker: '⟨U+202A⟩' },
    ]);
  });
  test('past MARKED_LIMIT the rest are plain-text markers, so a body of overrides stays one string', () => {
    const parts = rawParts('\u202E'.repeat(MARKED_LIMIT + 3) + 'end');
    expect(parts).toHaveLength(MARKED_LIMIT + 1);
    expect(parts.at(-1)).toBe('⟨U+202E⟩'.repeat(3) + 'end');
  });
});
