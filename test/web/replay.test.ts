/**
 * The dashboard's Replay form, its plain parts (web/src/lib/replay.ts): header lines read as the
 * CLI's `-H` reads them (src/model/header-line.ts, one parser for both), the target URL remembered
 * without anything secret, and the `hookcap replay` command whose body part bash turns back into
 * the exact bytes, through base64 when the text holds a character that must not reach a terminal.
 */
import { describe, expect, test } from 'bun:test';
import { parseHeaderLine } from '../../src/model/header-line';
import { notPublicReason, parseHeaderChanges, replayCommand, urlToRemember } from '../../web/src/lib/replay';

describe('header lines', () => {
  test("curl's three forms, the name lower-cased, the value trimmed", () => {
    expect(parseHeaderLine('X-Debug: 1')).toEqual(['x-debug', '1']);
    expect(parseHeaderLine('  x-a :  b c ')).toEqual(['x-a', 'b c']);
    expect(parseHeaderLine('x-drop:')).toEqual(['x-drop', null]);
    expect(parseHeaderLine('x-empty;')).toEqual(['x-empty', '']);
    expect(parseHeaderLine('x-url: https://a.example/x?y=1;z')).toEqual(['x-url', 'https://a.example/x?y=1;z']);
    for (const bad of ['no colon', ': value', 'x a: b', 'ünï: x', ';', '']) expect(parseHeaderLine(bad)).toBeNull();
  });

  test('the Replay form: blank lines skipped, a bad line named by its number, typed text as its UTF-8 bytes', () => {
    expect(parseHeaderChanges('X-Note: café ✓\n\nx-drop:\r\nx-empty;')).toEqual({
      typed: [['x-note', 'café ✓'], ['x-drop', null], ['x-empty', '']],
      // The record's one-character-per-byte form (docs/exports.md, "Header bytes").
      headers: { 'x-note': 'cafÃ© â\u009c\u0093', 'x-drop': null, 'x-empty': '' },
    });
    expect(parseHeaderChanges('x-a: 1\nnot a header')).toEqual({ error: 'Line 2 is not "Name: value", "Name:" or "Name;".' });
    expect(parseHeaderChanges('x-a: bell\u0007')).toEqual({ error: 'Line 1: a header value cannot hold control characters.' });
    expect(parseHeaderChanges('x-tab: a\tb')).toEqual({ typed: [['x-tab', 'a\tb']], headers: { 'x-tab': 'a\tb' } });
  });
});

test('a remembered target keeps scheme, host, port and path: no user, password, query or fragment', () => {
  expect(urlToRemember(' https://user:secret@staging.example:8443/hooks/in?token=abc#access_token=x ')).toBe('https://staging.example:8443/hooks/in');
  expect(urlToRemember('http://127.0.0.1:4000')).toBe('http://127.0.0.1:4000/');
  expect(urlToRemember('ftp://files.example/x')).toBeNull();
  expect(urlToRemember('not a url')).toBeNull();
});

describe('the hookcap replay command', () => {
  /** What the command's body part (everything before `| hookcap`) writes, run by bash. */
  async function bodyPiped(command: string): Promise<Uint8Array> {
    const source = command.slice(0, command.lastIndexOf(' | hookcap '));
    const proc = Bun.spawn(['bash', '-c', source], { stdout: 'pipe' });
    const out = new Uint8Array(await new Response(proc.stdout).arrayBuffer());
    expect(await proc.exited).toBe(0);
    return out;
  }

  test('target, header changes and API address quoted for the shell; no body part when the body is unchanged', () => {
    const command = replayCommand({ id: 'req_1', url: "http://127.0.0.1:4000/it's", typed: [['x-a', '1'], ['x-drop', null], ['x-empty', '']], apiUrl: 'https://hookcap.example' });
    expect(command).toBe("hookcap replay req_1 --to 'http://127.0.0.1:4000/it'\\''s' -H 'x-a: 1' -H 'x-drop:' -H 'x-empty;' --api-url 'https://hookcap.example'");
    expect(replayCommand({ id: 'req_1', url: 'http://localhost:4000/', typed: [], apiUrl: 'http://localhost:3000' })).toBe("hookcap replay req_1 --to 'http://localhost:4000/'");
  });

  test('an edited body reaches stdin exactly: printable text as itself, text with an escape or bidi character through base64', async () => {
    for (const body of ['{"type":"invoice.paid","note":"it\'s $(rm -rf /) café"}', 'line one\nline two\n', 'ESC \u001b[31m red, bidi \u202e here', '']) {
      const command = replayCommand({ id: 'req_1', url: 'http://localhost:4000/', typed: [], body, apiUrl: 'http://localhost:3000' });
      expect(command).toEndWith("| hookcap replay req_1 --to 'http://localhost:4000/' --body @-");
      // What a terminal would show holds no raw control or bidi character.
      expect(/[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/.test(command)).toBe(false);
      expect(new TextDecoder().decode(await bodyPiped(command))).toBe(body);
    }
  });
});

test("an address_not_public refusal's reason: the guard's words, else the message less its field and hint, never empty", () => {
  const hint = ' (to reach your own machine, replay with the CLI: hookcap replay req_1 --to URL)';
  expect(notPublicReason(`url: localhost (127.0.0.1) is a loopback address; outbound requests may only reach public addresses${hint}`)).toBe('localhost (127.0.0.1) is a loopback address');
  expect(notPublicReason(`url: 169.254.169.254 is a link-local address; outbound requests may only reach public addresses${hint}`)).toBe('169.254.169.254 is a link-local address');
  // Worded otherwise (another server version): what it says, without the field, the hint or a final stop.
  expect(notPublicReason(`url: 10.0.0.1 is private.${hint}`)).toBe('10.0.0.1 is private');
  expect(notPublicReason('10.0.0.1 is private')).toBe('10.0.0.1 is private');
  for (const bare of ['', 'url: ', `url:${hint}`]) expect(notPublicReason(bare)).toBe('it is not a public address');
});
