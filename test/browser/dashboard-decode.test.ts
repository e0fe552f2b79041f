/**
 * What senders encode, read in the request detail, in real Chromium on both backends, by role and
 * accessible name: bodies sent with `Content-Encoding: gzip`/`deflate` (compressed with node:zlib,
 * sent to the real receiver) are decompressed in the browser and shown through Pretty and Raw, the
 * stored bytes a click away and still what Copy body and Download body give; corrupt data, a zip
 * bomb and br (which Chromium's DecompressionStream lacks) are said plainly. Header values sent as
 * UTF-8 read as their text, and Copy as cURL still sends the bytes that arrived.
 */
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { openPage, signUpAccount, useChromium, createEndpoint, type Account, type TestEndpoint } from '../support/browser';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

async function stored(base: string, account: Account, id: string): Promise<Record<string, unknown>> {
  return eventually(async () => {
    const r = await call(base, 'GET', `/api/requests/${id}`, { token: account.session });
    return r.status === 200 ? (r.body as unknown as Record<string, unknown>) : undefined;
  }, 10_000);
}

async function send(ep: TestEndpoint, path: string, headers: Record<string, string>, body: Uint8Array | string): Promise<string> {
  const r = await fetch(`${ep.url}${path}`, { method: 'POST', headers, body });
  expect(r.status).toBe(200);
  return ((await r.json()) as { id: string }).id;
}

/** One request written byte for byte on a socket (fetch would refuse non-ASCII header bytes); its id. */
async function sendRaw(ep: TestEndpoint, path: string, headerLines: Buffer[]): Promise<string> {
  const url = new URL(`${ep.url}${path}`);
  const head = Buffer.concat([Buffer.from(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Length: 1\r\nConnection: close\r\n`), ...headerLines.flatMap((l) => [l, Buffer.from('\r\n')]), Buffer.from('\r\nx')]);
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(head));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
  });
  expect(answer).toStartWith('HTTP/1.1 200');
  return (JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { id: string }).id;
}

async function openRequest(page: Page, base: string, ep: TestEndpoint, id: string, path: string) {
  await page.goto(`${base}/endpoints/${ep.slug}/requests/${id}`);
  const detail = page.getByRole('article', { name: new RegExp(`\\${path}$`) });
  await detail.waitFor();
  return detail;
}

describeBackends('dashboard: encoded bodies and header values', (h) => {
  test('a gzip body reads decoded in Pretty and Raw; the stored bytes are a click away and what Copy and Download body give', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'gzip');
    const json = JSON.stringify({ type: 'invoice.paid', data: { amount: 4200, note: 'café' }, pad: 'x'.repeat(2000) });
    const gz = new Uint8Array(gzipSync(json));
    const id = await send(ep, '/gz', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, gz);
    const record = await stored(h.url, account, id);
    expect(record).toMatchObject({ bodyEncoding: 'base64', body: Buffer.from(gz).toString('base64'), size: gz.length });
    const { page, context, errors } = await openPage(chromium(), h.url, account, { permissions: ['clipboard-read', 'clipboard-write'] });
    try {
      const detail = await openRequest(page, h.url, ep, id, '/gz');
      const bar = detail.getByRole('group', { name: 'Content encoding' });
      await bar.getByText('Decoded (gzip)').waitFor();
      expect(await bar.textContent()).toContain(`from ${gz.length} B stored`);
      // The JSON tree of the decoded body, and its text in Raw.
      await detail.getByRole('tab', { name: 'Pretty', selected: true }).waitFor();
      expect(await detail.getByRole('tabpanel').getByRole('tree').textContent()).toContain('invoice.paid');
      await detail.getByRole('tab', { name: 'Raw' }).click();
      expect(await detail.getByRole('tabpanel').textContent()).toBe(json);

      // The stored bytes: Hex and Base64 of the compressed body, as before.
      await bar.getByRole('button', { name: 'Show stored bytes' }).click();
      await bar.getByText('Stored bytes (gzip)').waitFor();
      expect(await detail.getByRole('tab').allTextContents()).toEqual(['Hex', 'Base64']);
      await detail.getByRole('tab', { name: 'Base64' }).click();
      expect(await detail.getByRole('tabpanel').textContent()).toBe(Buffer.from(gz).toString('base64'));
      await bar.getByRole('button', { name: 'Show decoded' }).click();
      await detail.getByRole('tab', { name: 'Pretty' }).waitFor();

      // Copy body and Download body: the exact stored bytes; Download decoded: the JSON.
      await detail.getByRole('button', { name: 'Copy body (base64)' }).click();
      await page.getByRole('status').filter({ hasText: 'Copied the body' }).waitFor();
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(Buffer.from(gz).toString('base64'));
      const [body] = await Promise.all([page.waitForEvent('download'), detail.getByRole('button', { name: 'Download body' }).click()]);
      expect(new Uint8Array(readFileSync(await body.path()))).toEqual(gz);
      const tab = await context.newPage(); // Chromium holds back a page's repeated downloads
      const again = await openRequest(tab, h.url, ep, id, '/gz');
      const [decoded] = await Promise.all([tab.waitForEvent('download'), again.getByRole('button', { name: 'Download decoded' }).click()]);
      expect(decoded.suggestedFilename()).toBe(`${id}.decoded.json`);
      expect(readFileSync(await decoded.path(), 'utf8')).toBe(json);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('deflate decodes; corrupt data, a zip bomb and br are said plainly, with the stored bytes shown', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'codings');
    const text = 'plain text, deflated\n';
    const deflated = await send(ep, '/deflate', { 'content-type': 'text/plain', 'content-encoding': 'deflate' }, new Uint8Array(deflateSync(text)));
    const corrupt = await send(ep, '/corrupt', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, new Uint8Array([0x1f, 0x8b, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8]));
    // 64 MiB of zeros in about 64 KB: under the receiver's body limit, far over the decoding limit.
    const bomb = await send(ep, '/bomb', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, new Uint8Array(gzipSync(new Uint8Array(64 * 1024 * 1024))));
    const br = await send(ep, '/br', { 'content-type': 'application/json', 'content-encoding': 'br' }, new Uint8Array(brotliCompressSync('{"a":1}')));
    for (const id of [deflated, corrupt, bomb, br]) await stored(h.url, account, id);
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      let detail = await openRequest(page, h.url, ep, deflated, '/deflate');
      await detail.getByRole('group', { name: 'Content encoding' }).getByText('Decoded (deflate)').waitFor();
      await detail.getByRole('tab', { name: 'Raw', selected: true }).waitFor();
      expect(await detail.getByRole('tabpanel').textContent()).toBe(text);

      const said: [string, string, string][] = [
        [corrupt, '/corrupt', 'The body is not valid gzip data'],
        [bomb, '/bomb', 'Decompressed, the body is larger than 10 MB; decoding stopped there.'],
        [br, '/br', 'This browser cannot decompress br'],
      ];
      for (const [id, path, message] of said) {
        detail = await openRequest(page, h.url, ep, id, path);
        const note = detail.getByRole('note', { name: 'Content encoding' });
        await note.waitFor();
        expect(await note.textContent()).toContain(message);
        expect(await note.textContent()).toContain('Shown: the stored bytes');
        expect(await detail.getByRole('tab').allTextContents()).toEqual(['Hex', 'Base64']);
      }
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('header values sent as UTF-8 read as text; Copy as cURL sends the bytes that arrived', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'headers');
    const utf8Line = Buffer.concat([Buffer.from('x-name: '), Buffer.from('café ✓', 'utf8')]);
    const latin1Line = Buffer.from('x-latin1: caf\xe9', 'latin1'); // one byte 0xE9: not UTF-8
    const id = await sendRaw(ep, '/hdr', [utf8Line, latin1Line]);
    const original = await stored(h.url, account, id);
    const headers = original.headers as Record<string, string>;
    expect(headers['x-name']).toBe('cafÃ© â\u009c\u0093'); // one character per byte, as stored
    const { page, context, errors } = await openPage(chromium(), h.url, account, { permissions: ['clipboard-read', 'clipboard-write'] });
    try {
      const detail = await openRequest(page, h.url, ep, id, '/hdr');
      const table = detail.getByRole('table', { name: 'Headers' });
      await table.getByRole('row', { name: 'x-name café ✓' }).waitFor();
      expect(await table.getByRole('row', { name: 'x-latin1 café' }).count()).toBe(1);
      expect(await table.textContent()).not.toContain('Ã');

      await detail.getByRole('button', { name: 'Copy as cURL' }).click();
      await page.getByRole('status').filter({ hasText: 'Copied as cURL' }).waitFor();
      const curl = String(await page.evaluate('navigator.clipboard.readText()'));
      expect(curl).toContain(`'x-name: café ✓'`);
      const proc = Bun.spawn(['bash', '-c', `${curl} -s -o /dev/null`], { stderr: 'pipe' });
      expect(await proc.exited).toBe(0);
      // The replay is captured with the same header bytes.
      const replayed = await eventually(async () => {
        const list = (await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: account.session })).body as { id: string; headers: Record<string, string> }[];
        return list.find((c) => c.id !== id);
      }, 10_000);
      expect(replayed.headers['x-name']).toBe(headers['x-name']);
      expect(replayed.headers['x-latin1']).toBe(headers['x-latin1']);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
