import { afterEach, expect, test } from 'bun:test';
import { appendFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CaptureLog } from '../../src/engine/capture-log';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'caplog-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

test('appends made together share fsyncs and all come back on reopen', async () => {
  const dir = tmp();
  const { log } = await CaptureLog.open(dir, 1 << 20);
  await Promise.all(Array.from({ length: 500 }, (_, i) => log.append(enc(`c${i}`))));
  expect(log.stats.frames).toBe(500);
  expect(log.stats.groups).toBeLessThan(500);
  await log.close();
  const again = await CaptureLog.open(dir, 1 << 20);
  expect(again.unshipped.map((f) => dec(f.payload))).toEqual(Array.from({ length: 500 }, (_, i) => `c${i}`));
  await again.log.close();
});

test('the checkpoint hides shipped frames and old segments are deleted', async () => {
  const dir = tmp();
  const { log } = await CaptureLog.open(dir, 4096);
  const positions = [];
  for (let i = 0; i < 100; i++) positions.push(await log.append(enc(`frame-${i}-${'x'.repeat(100)}`)));
  expect(readdirSync(dir).filter((f) => f.endsWith('.log')).length).toBeGreaterThan(1);
  const mid = positions[59];
  if (!mid) throw new Error('no position');
  log.checkpoint(mid);
  await log.close();
  const again = await CaptureLog.open(dir, 4096);
  expect(again.unshipped.length).toBe(40);
  expect(dec(again.unshipped[0]?.payload ?? new Uint8Array())).toStartWith('frame-60-');
  const segs = readdirSync(dir).filter((f) => f.endsWith('.log')).map((f) => Number.parseInt(f, 10));
  expect(Math.min(...segs)).toBe(mid.segment);
  await again.log.close();
});

test('a torn tail (crash mid-write) is cut off; intact frames survive; appends continue', async () => {
  const dir = tmp();
  const { log } = await CaptureLog.open(dir, 1 << 20);
  for (let i = 0; i < 10; i++) await log.append(enc(`ok${i}`));
  await log.close();
  const seg = readdirSync(dir).find((f) => f.endsWith('.log'));
  if (!seg) throw new Error('no segment');
  const path = join(dir, seg);
  const goodSize = statSync(path).size;
  // Half a frame header plus garbage, as a crash during write could leave.
  appendFileSync(path, new Uint8Array([50, 0, 0, 0, 1, 2]));
  const again = await CaptureLog.open(dir, 1 << 20);
  expect(again.unshipped.map((f) => dec(f.payload))).toEqual(Array.from({ length: 10 }, (_, i) => `ok${i}`));
  expect(statSync(path).size).toBe(goodSize);
  await again.log.append(enc('after'));
  await again.log.close();
  const third = await CaptureLog.open(dir, 1 << 20);
  expect(third.unshipped.map((f) => dec(f.payload)).at(-1)).toBe('after');
  expect(third.unshipped.length).toBe(11);
  await third.log.close();
});

test('a corrupted frame (bad checksum) ends replay there', async () => {
  const dir = tmp();
  const { log } = await CaptureLog.open(dir, 1 << 20);
  for (let i = 0; i < 3; i++) await log.append(enc(`v${i}`));
  await log.close();
  const seg = readdirSync(dir).find((f) => f.endsWith('.log'));
  if (!seg) throw new Error('no segment');
  const path = join(dir, seg);
  const data = new Uint8Array(await Bun.file(path).arrayBuffer());
  // Flip a byte in the payload of the last frame.
  data[data.length - 1] = (data[data.length - 1] ?? 0) ^ 0xff;
  await Bun.write(path, data);
  const again = await CaptureLog.open(dir, 1 << 20);
  expect(again.unshipped.map((f) => dec(f.payload))).toEqual(['v0', 'v1']);
  await again.log.close();
});
