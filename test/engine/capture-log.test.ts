import { afterEach, expect, test } from 'bun:test';
import { appendFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CaptureLog, readCheckpoint, writeCheckpoint, type LogPosition } from '../../src/engine/capture-log';
import { LogReader } from '../../src/engine/log-reader';

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

/** What the shipper worker would read: every frame after the checkpoint, up to `end`. */
function unshippedFrames(dir: string, end: LogPosition): { text: string; end: LogPosition }[] {
  const reader = new LogReader(dir, readCheckpoint(dir));
  const out = reader.read(end, Number.MAX_SAFE_INTEGER).map((f) => ({ text: dec(f.payload), end: f.end }));
  reader.close();
  return out;
}

test('appends made together share fsyncs and all come back on reopen', async () => {
  const dir = tmp();
  const { log } = await CaptureLog.open(dir, 1 << 20);
  let durableFrames = 0;
  log.onDurable = (_end, frames) => {
    durableFrames += frames;
  };
  await Promise.all(Array.from({ length: 500 }, (_, i) => log.append(enc(`c${i}`))));
  expect(log.stats.frames).toBe(500);
  expect(durableFrames).toBe(500);
  expect(log.stats.groups).toBeLessThan(500);
  await log.close();
  const again = await CaptureLog.open(dir, 1 << 20);
  expect(again.unshipped).toBe(500);
  expect(unshippedFrames(dir, again.end).map((f) => f.text)).toEqual(Array.from({ length: 500 }, (_, i) => `c${i}`));
  await again.log.close();
});

test('the reader follows frames across segments; the checkpoint hides shipped ones and drops old segments', async () => {
  const dir = tmp();
  const { log } = await CaptureLog.open(dir, 4096);
  let end: LogPosition = { segment: 0, offset: 0 };
  log.onDurable = (e) => {
    end = e;
  };
  for (let i = 0; i < 100; i++) await log.append(enc(`frame-${i}-${'x'.repeat(100)}`));
  expect(readdirSync(dir).filter((f) => f.endsWith('.log')).length).toBeGreaterThan(1);
  const all = unshippedFrames(dir, end);
  expect(all.length).toBe(100);
  const mid = all[59]?.end;
  if (!mid) throw new Error('no position');
  writeCheckpoint(dir, mid);
  await log.close();
  const again = await CaptureLog.open(dir, 4096);
  expect(again.unshipped).toBe(40);
  const rest = unshippedFrames(dir, again.end);
  expect(rest.length).toBe(40);
  expect(rest[0]?.text).toStartWith('frame-60-');
  const segs = readdirSync(dir).filter((f) => f.endsWith('.log')).map((f) => Number.parseInt(f, 10));
  expect(Math.min(...segs)).toBe(mid.segment);
  await again.log.close();
});

test('a reader stops at the durable end and resumes from there', async () => {
  const dir = tmp();
  const { log } = await CaptureLog.open(dir, 1 << 20);
  const ends: LogPosition[] = [];
  log.onDurable = (e) => ends.push(e);
  await log.append(enc('a'));
  const firstEnd = ends.at(-1);
  await log.append(enc('b'));
  if (!firstEnd) throw new Error('no end');
  const reader = new LogReader(dir, { segment: 0, offset: 0 });
  expect(reader.read(firstEnd, 100).map((f) => dec(f.payload))).toEqual(['a']);
  const lastEnd = ends.at(-1);
  if (!lastEnd) throw new Error('no end');
  expect(reader.read(lastEnd, 100).map((f) => dec(f.payload))).toEqual(['b']);
  expect(reader.read(lastEnd, 100)).toEqual([]);
  reader.close();
  await log.close();
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
  expect(again.unshipped).toBe(10);
  expect(statSync(path).size).toBe(goodSize);
  await again.log.append(enc('after'));
  await again.log.close();
  const third = await CaptureLog.open(dir, 1 << 20);
  const frames = unshippedFrames(dir, third.end);
  expect(frames.length).toBe(11);
  expect(frames.at(-1)?.text).toBe('after');
  await third.log.close();
});

test('a corrupted frame (bad checksum) ends the log there', async () => {
  const dir = tmp();
  const { log } = await CaptureLog.open(dir, 1 << 20);
  for (let i = 0; i < 3; i++) await log.append(enc(`v${i}`));
  await log.close();
  const seg = readdirSync(dir).find((f) => f.endsWith('.log'));
  if (!seg) throw new Error('no segment');
  const path = join(dir, seg);
  const data = new Uint8Array(await Bun.file(path).arrayBuffer());
  data[data.length - 1] = (data[data.length - 1] ?? 0) ^ 0xff;
  await Bun.write(path, data);
  const again = await CaptureLog.open(dir, 1 << 20);
  expect(again.unshipped).toBe(2);
  expect(unshippedFrames(dir, again.end).map((f) => f.text)).toEqual(['v0', 'v1']);
  await again.log.close();
});
