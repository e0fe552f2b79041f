/**
 * The capture log's write thread (src/engine/log-writer.ts): bytes land at the asked position,
 * writes complete in order, a failed write rejects with the errno code, and a group larger than
 * the staging area is left to the caller.
 */
import { afterEach, expect, test } from 'bun:test';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogWriteError, LogWriter } from '../../src/engine/log-writer';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setup(): { writer: LogWriter; path: string; fd: number } {
  const dir = mkdtempSync(join(tmpdir(), 'logwriter-'));
  const path = join(dir, 'seg.log');
  const fd = openSync(path, 'w+');
  const writer = LogWriter.start();
  cleanups.push(() => {
    writer.stop();
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });
  return { writer, path, fd };
}

test('writes land at their positions, one after another, byte for byte', async () => {
  const { writer, path, fd } = setup();
  const parts = Array.from({ length: 200 }, (_, i) => new Uint8Array(37 + (i % 50)).map((_, j) => (i * 7 + j) & 0xff));
  let at = 0;
  for (const p of parts) {
    await writer.write(fd, p, at);
    at += p.length;
  }
  const expected = new Uint8Array(at);
  let o = 0;
  for (const p of parts) {
    expected.set(p, o);
    o += p.length;
  }
  expect(new Uint8Array(readFileSync(path))).toEqual(expected);
  // Positioned: overwriting the start leaves the rest as it was.
  await writer.write(fd, new Uint8Array([1, 2, 3]), 0);
  const after = new Uint8Array(readFileSync(path));
  expect([...after.subarray(0, 3)]).toEqual([1, 2, 3]);
  expect(after.subarray(3)).toEqual(expected.subarray(3));
});

test('a failed write rejects with its errno code, and the thread goes on writing', async () => {
  const { writer, path, fd } = setup();
  const readOnly = openSync(path, 'r');
  cleanups.push(() => closeSync(readOnly));
  const failed = await writer.write(readOnly, new Uint8Array([9]), 0).catch((e: unknown) => e);
  expect(failed).toBeInstanceOf(LogWriteError);
  expect((failed as LogWriteError).code).toBe('EBADF');
  await writer.write(fd, new Uint8Array([7, 7]), 0);
  expect([...readFileSync(path)]).toEqual([7, 7]);
});

test('a group larger than the staging area does not fit; after stop nothing does', () => {
  const { writer } = setup();
  expect(writer.fits(1024)).toBe(true);
  expect(writer.fits(64 * 1024 * 1024)).toBe(false);
  writer.stop();
  expect(writer.fits(1)).toBe(false);
});

test('each write is timed on the write thread; the most recent 1,024 times are kept', async () => {
  const { writer, fd } = setup();
  expect(writer.recentWriteMs()).toEqual([]);
  const started = performance.now();
  for (let i = 0; i < 10; i++) await writer.write(fd, new Uint8Array(4096).fill(i), i * 4096);
  const elapsed = performance.now() - started;
  const times = writer.recentWriteMs();
  expect(times.length).toBe(10);
  // Each is a real duration: above zero, and together no longer than the writes took end to end.
  for (const t of times) expect(t).toBeGreaterThan(0);
  expect(times.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(elapsed);
  for (let i = 0; i < 1030; i++) await writer.write(fd, new Uint8Array([i & 0xff]), i);
  expect(writer.recentWriteMs().length).toBe(1024);
});
