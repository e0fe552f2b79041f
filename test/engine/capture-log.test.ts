import { afterEach, expect, test } from 'bun:test';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CaptureLog, frameChecksum, readCheckpoint, scanFrames, walkFrames, writeCheckpoint, type LogPosition } from '../../src/engine/capture-log';
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
const segmentFiles = (dir: string) => readdirSync(dir).filter((f) => /^\d{12}\.log$/.test(f)).sort();
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

test('text and bytes appended in one group come back byte for byte; appendText hands back the frame as written', async () => {
  const dir = tmp();
  const { log } = await CaptureLog.open(dir, 1 << 20);
  const texts = ['{"a":1}', 'ünïcödé 🎉 中文', 'x'.repeat(5000), 'lone \ud800 surrogate', 'tab\tline\n'];
  const results = await Promise.all(
    texts.flatMap((t, i) => [log.appendText(t).then((r) => ({ kind: 'text' as const, i, frame: r.frame, at: r.at })), log.append(enc(`bytes-${i}`)).then((at) => ({ kind: 'bytes' as const, i, frame: null, at }))]),
  );
  expect(log.stats.groups).toBeLessThan(texts.length * 2);
  for (const r of results) if (r.kind === 'text') expect([...(r.frame ?? [])]).toEqual([...enc(texts[r.i] ?? '')]);
  // Positions are the frames' starts, in append order.
  const starts = results.map((r) => r.at.offset);
  expect([...starts].sort((a, b) => a - b)).toEqual(starts);
  const end = log.end;
  await log.close();
  const again = await CaptureLog.open(dir, 1 << 20);
  expect(again.unshipped).toBe(texts.length * 2);
  expect(unshippedFrames(dir, end).map((f) => f.text)).toEqual(texts.flatMap((t, i) => [new TextDecoder().decode(enc(t)), `bytes-${i}`]));
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
  expect(segmentFiles(dir).length).toBeGreaterThan(1);
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
  const segs = segmentFiles(dir).map((f) => Number.parseInt(f, 10));
  expect(Math.min(...segs)).toBe(mid.segment);
  // Shipped segments are kept as spares for reuse, at most two; the rest are deleted.
  expect(readdirSync(dir).filter((f) => f.startsWith('spare-')).length).toBe(Math.min(2, mid.segment - 1));
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

test('one frame parser: whole frames, where more bytes are needed, and where checked frames end', () => {
  const frame = (text: string, seed: number, crc = frameChecksum(enc(text), seed)) => {
    const out = new Uint8Array(8 + text.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, text.length, true);
    view.setUint32(4, crc, true);
    out.set(enc(text), 8);
    return out;
  };
  const join = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
  const walk = (data: Uint8Array, seed: number | null, max = 10, limit = data.length) => {
    const seen: string[] = [];
    const result = walkFrames(data, 0, { seed, limit, max }, (p) => seen.push(dec(p)));
    return { seen, ...result };
  };
  const two = join(frame('one', 7), frame('two', 7));
  // Checked up to a limit that is the end of the data, the frames end there; trusted, more may come.
  expect(walk(two, 7)).toEqual({ seen: ['one', 'two'], at: 22, stop: 'end' });
  expect(walk(two, null)).toEqual({ seen: ['one', 'two'], at: 22, stop: 'more' });
  expect(walk(two, 7, 1)).toEqual({ seen: ['one'], at: 11, stop: 'max' });
  // A frame cut short: a trusted walk waits for more; a checked one whose limit is the data ends there.
  expect(walk(two.subarray(0, 15), null)).toEqual({ seen: ['one'], at: 11, stop: 'more' });
  expect(walk(two.subarray(0, 15), 7)).toEqual({ seen: ['one'], at: 11, stop: 'end' });
  expect(walk(two.subarray(0, 15), 7, 10, 100)).toEqual({ seen: ['one'], at: 11, stop: 'more' });
  // A checksum seeded with another segment's number, or a bad one, ends a checked walk only.
  const stale = join(frame('one', 7), frame('old', 6));
  expect(walk(stale, 7)).toEqual({ seen: ['one'], at: 11, stop: 'end' });
  expect(walk(stale, null)).toEqual({ seen: ['one', 'old'], at: 22, stop: 'more' });
  expect(walk(join(frame('one', 7), new Uint8Array(8)), 7)).toEqual({ seen: ['one'], at: 11, stop: 'end' });
  expect(scanFrames(stale, 0, 7)).toBe(11);
});

test('a frame larger than the reader reads at once is read whole', async () => {
  const dir = tmp();
  const { log } = await CaptureLog.open(dir, 64 << 20);
  let end: LogPosition | undefined;
  log.onDurable = (e) => {
    end = e;
  };
  const big = 'x'.repeat(5 << 20);
  await log.append(enc('small'));
  await log.append(enc(big));
  await log.append(enc('after'));
  await log.close();
  if (!end) throw new Error('no end');
  const read = new LogReader(dir, { segment: 0, offset: 0 }).read(end, 10).map((f) => f.payload.length);
  expect(read).toEqual([5, big.length, 5]);
});

test('a torn tail (crash mid-write) is cut off; intact frames survive; appends continue', async () => {
  const dir = tmp();
  const { log } = await CaptureLog.open(dir, 1 << 20);
  for (let i = 0; i < 10; i++) await log.append(enc(`ok${i}`));
  await log.close();
  const seg = segmentFiles(dir)[0];
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
  const seg = segmentFiles(dir)[0];
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

/** Writes `n` frames, ships everything (checkpoint at the end), and returns the log still open. */
async function writeAndShip(dir: string, segmentBytes: number, n: number, tag: string) {
  const opened = await CaptureLog.open(dir, segmentBytes);
  let end = opened.end;
  opened.log.onDurable = (e) => {
    end = e;
  };
  for (let i = 0; i < n; i++) await opened.log.append(enc(`${tag}-${String(i).padStart(3, '0')}-${'y'.repeat(200)}`));
  writeCheckpoint(dir, end);
  return { log: opened.log, end: () => end };
}

test('shipped segments are recycled; their old frames never come back', async () => {
  const dir = tmp();
  // Fill several small segments and ship them all: two become spares.
  const first = await writeAndShip(dir, 4096, 60, 'old');
  // New frames now go into recycled files that still hold the old frames after them.
  let end = first.end();
  first.log.onDurable = (e) => {
    end = e;
  };
  // Same size as the old frames, so a new frame's end lines up with an old frame's start.
  for (let i = 0; i < 25; i++) await first.log.append(enc(`new-${String(i).padStart(3, '0')}-${'y'.repeat(200)}`));
  expect(first.log.stats.recycled).toBeGreaterThan(0);
  const live = unshippedFrames(dir, end).map((f) => f.text);
  expect(live).toEqual(Array.from({ length: 25 }, (_, i) => `new-${String(i).padStart(3, '0')}-${'y'.repeat(200)}`));
  await first.log.close();
  // After a restart (as after a crash) exactly the unshipped frames are found, in order.
  const again = await CaptureLog.open(dir, 4096);
  expect(again.unshipped).toBe(25);
  expect(unshippedFrames(dir, again.end).map((f) => f.text)).toEqual(live);
  await again.log.close();
});

test('a spare renamed into place but never given its header (crash) holds no frames', async () => {
  const dir = tmp();
  const first = await writeAndShip(dir, 4096, 60, 'old');
  const end = first.end();
  await first.log.close();
  const spare = readdirSync(dir).find((f) => f.startsWith('spare-'));
  if (!spare) throw new Error('no spare');
  // What the writer does first when it rolls, then dies before writing the header.
  const next = end.segment + 1;
  renameSync(join(dir, spare), join(dir, `${String(next).padStart(12, '0')}.log`));
  const again = await CaptureLog.open(dir, 4096);
  expect(again.unshipped).toBe(0);
  expect(again.end.segment).toBeGreaterThan(next);
  let after = again.end;
  again.log.onDurable = (e) => {
    after = e;
  };
  await again.log.append(enc('after'));
  const frames = unshippedFrames(dir, after);
  expect(frames.map((f) => f.text)).toEqual(['after']);
  await again.log.close();
});

test('segments from before the header existed are replayed; new frames go to a new segment', async () => {
  const dir = tmp();
  mkdirSync(dir, { recursive: true });
  // The old format: frames from offset 0, checksums without a seed.
  const frames = ['legacy-a', 'legacy-b'].map((t) => {
    const payload = enc(t);
    const frame = new Uint8Array(8 + payload.length);
    const view = new DataView(frame.buffer);
    view.setUint32(0, payload.length, true);
    view.setUint32(4, Bun.hash.crc32(payload) >>> 0, true);
    frame.set(payload, 8);
    return frame;
  });
  writeFileSync(join(dir, '000000000001.log'), Buffer.concat(frames));
  const opened = await CaptureLog.open(dir, 1 << 20);
  expect(opened.unshipped).toBe(2);
  expect(opened.end.segment).toBe(2);
  let end = opened.end;
  opened.log.onDurable = (e) => {
    end = e;
  };
  await opened.log.append(enc('new'));
  const all = unshippedFrames(dir, end);
  expect(all.map((f) => f.text)).toEqual(['legacy-a', 'legacy-b', 'new']);
  await opened.log.close();
});

test('a reader that reuses its buffer returns the same frames as one that does not, across segments and a frame larger than a chunk', async () => {
  const dir = tmp();
  // Small segments: one read() crosses several of them, so its frames come from several chunks.
  const { log } = await CaptureLog.open(dir, 4096);
  const texts = Array.from({ length: 300 }, (_, i) => `capture ${i} ${'x'.repeat(i % 97)}`);
  texts.splice(150, 0, `big ${'y'.repeat(5 * 1024 * 1024)}`); // over the reader's 4 MiB chunk
  for (const t of texts) await log.append(enc(t));
  const end = log.end;
  await log.close();
  expect(segmentFiles(dir).length).toBeGreaterThan(3);

  const fresh = new LogReader(dir, { segment: 0, offset: 0 });
  const expected = fresh.read(end, Number.MAX_SAFE_INTEGER).map((f) => dec(f.payload));
  fresh.close();
  expect(expected).toEqual(texts);

  // Read in small steps; decode each step's frames before the next read, as the shipper worker does.
  const reusing = new LogReader(dir, { segment: 0, offset: 0 }, { reuseBuffer: true });
  const got: string[] = [];
  const views: Uint8Array[] = [];
  for (let step = 0; step < 1000 && got.length < texts.length; step++) {
    const frames = reusing.read(end, 7);
    views.push(...frames.map((f) => f.payload));
    got.push(...frames.map((f) => dec(f.payload)));
  }
  reusing.close();
  expect(got).toEqual(texts);
  // The buffer really is reused: payloads kept from an early read now hold other bytes.
  expect(dec(views[0] as Uint8Array)).not.toBe(texts[0]);
});

test("a group larger than the write thread's staging area is written all the same, and frames around it too", async () => {
  const dir = tmp();
  const { log } = await CaptureLog.open(dir, 64 * 1024 * 1024);
  const big = `big ${'z'.repeat(9 * 1024 * 1024)}`; // over log-writer.ts' 8 MiB staging area
  await Promise.all([log.append(enc('before')), log.append(enc(big)), log.append(enc('after'))]);
  await log.append(enc('last'));
  const end = log.end;
  await log.close();
  expect(unshippedFrames(dir, end).map((f) => (f.text.length > 100 ? f.text.length : f.text))).toEqual(['before', big.length, 'after', 'last']);
});
