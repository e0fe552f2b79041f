/**
 * The live list of one endpoint's captures, newest first: the first page from the paginated API,
 * then the SSE stream (EventSource with the session cookie), older pages on demand. Captures from
 * the stream are buffered and merged once per animation frame, so a burst of thousands costs a few
 * dozen renders; none is dropped (ids are deduplicated, not capped).
 *
 * Gaps are closed from the paginated API: after every (re)connect the newest pages are read again
 * until a known capture shows up. That covers what the browser's own Last-Event-ID resume cannot:
 * captures acknowledged but not yet shipped when the stream subscribed, a drop before the first
 * event (no id to resume from), and a stream the browser gave up on (an HTTP error), which is
 * reopened here with backoff.
 *
 * A first page that could not be read (the server down when the page opened) is read again, with
 * the same backoff and at once when the stream (re)opens; until it arrives the list is not known
 * (`loading`), so nothing says it is empty.
 */
import { ApiError, api, errorText, unwrap, type Capture } from '../api/client';
import { sessionExpired, signedOutOn } from '../api/queries';

export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'ended';

export interface LiveState {
  /** What the list shows, newest first. */
  items: readonly Capture[];
  /** Captures that arrived while paused ("N new"). */
  held: number;
  paused: boolean;
  status: LiveStatus;
  /** Why the stream ended: endpoint_deleted, endpoint_expired, access_revoked, credential_revoked, session_expired, not_found, signed_out. */
  endReason: string | null;
  /** The first page has not arrived yet (it is being read, or read again after a failure): how many there are is not known. */
  loading: boolean;
  hasMore: boolean;
  loadingOlder: boolean;
  error: string | null;
}

const PAGE_SIZE = 100;
/**
 * Longer than the capture store lags the log (SHIP_MAX_AGE_MS: 1 s with ClickHouse, 250 ms
 * embedded; then the insert), with margin.
 */
const RECONCILE_MS = 2500;
const GAP_PAGES = 20;

/** Newest first; capture ids are `req_` + a ULID whose time part is receivedAt, so ids sort by time. */
const newestFirst = (a: Capture, b: Capture) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

export class LiveList {
  private state: LiveState = { items: [], held: 0, paused: false, status: 'connecting', endReason: null, loading: true, hasMore: false, loadingOlder: false, error: null };
  private readonly listeners = new Set<() => void>();
  private readonly ids = new Set<string>();
  private incoming: Capture[] = [];
  private held: Capture[] = [];
  private cursor: string | null = null;
  private source: EventSource | null = null;
  /** The latest attempt at the first page; fillGap waits for it. */
  private firstPage: Promise<void> | null = null;
  private firstReading = false;
  private firstAttempt = 0;
  private firstRetry: ReturnType<typeof setTimeout> | null = null;
  private frame = 0;
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private timers = new Set<ReturnType<typeof setTimeout>>();
  private attempt = 0;
  private stopped = false;
  /** The first page arrived: there is a list to fill gaps in. */
  private loaded = false;
  /** Bumped by clear(): answers to reads begun before it are dropped. */
  private generation = 0;

  constructor(readonly slug: string) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getState = (): LiveState => this.state;

  start(): void {
    this.open();
    this.firstPage = this.loadFirst();
  }

  stop(): void {
    this.stopped = true;
    this.source?.close();
    this.source = null;
    cancelAnimationFrame(this.frame);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  pause(): void {
    this.set({ paused: true });
  }

  resume(): void {
    const held = this.held;
    this.held = [];
    this.set({ paused: false, held: 0, items: this.merged(held) });
  }

  /** A listed capture changed on the server (kept, no longer kept): the list shows the new record. */
  replace = (changed: Capture): void => {
    if (!this.ids.has(changed.id)) return;
    const swap = (c: Capture) => (c.id === changed.id ? changed : c);
    this.held = this.held.map(swap);
    this.set({ items: this.state.items.map(swap) });
  };

  /** After "clear captures": everything so far is hidden on the server too. */
  clear(): void {
    this.generation++;
    this.ids.clear();
    this.incoming = [];
    this.held = [];
    this.cursor = null;
    // Whatever was still loading is moot: the list is complete, and empty.
    this.loaded = true;
    this.set({ items: [], held: 0, hasMore: false, loading: false, error: null });
  }

  async loadOlder(): Promise<void> {
    if (this.state.loadingOlder || !this.state.hasMore || this.cursor === null) return;
    this.set({ loadingOlder: true });
    const generation = this.generation;
    try {
      const page = await this.fetchPage(this.cursor, PAGE_SIZE);
      if (this.stopped || generation !== this.generation) return;
      const older = this.unseen(page.items);
      this.cursor = page.cursor;
      this.set({ items: [...this.state.items, ...older], hasMore: page.hasMore, loadingOlder: false, error: null });
    } catch (e) {
      this.set({ loadingOlder: false, error: errorText(e) });
    }
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }

  private set(patch: Partial<LiveState>): void {
    this.state = { ...this.state, ...patch };
    this.emit();
  }

  private timer(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.stopped) fn();
    }, ms);
    this.timers.add(t);
    return t;
  }

  private fetchPage(cursor: string | undefined | null, limit: number) {
    return unwrap(api.endpoints({ slug: this.slug }).requests.paginated.get({ query: { limit: String(limit), ...(cursor ? { cursor } : {}) } }));
  }

  /** Reads the first page now, unless it is being read or is in; a read planned for later is done now instead. */
  private retryFirst(): void {
    if (this.loaded || this.firstReading || this.stopped) return;
    if (this.firstRetry !== null) {
      clearTimeout(this.firstRetry);
      this.timers.delete(this.firstRetry);
      this.firstRetry = null;
    }
    this.firstPage = this.loadFirst();
  }

  private async loadFirst(): Promise<void> {
    const generation = this.generation;
    const retried = this.firstAttempt > 0;
    this.firstReading = true;
    try {
      const page = await this.fetchPage(undefined, PAGE_SIZE);
      if (this.stopped || generation !== this.generation || this.loaded) return;
      this.loaded = true;
      this.cursor = page.cursor;
      this.set({ loading: false, hasMore: page.hasMore, items: this.merged(this.unseen(page.items)), error: null });
      // A stream opened before this page was read: what it missed while the capture store lagged
      // is closed as after any (re)connect (its own fillGap found no list to fill and gave up).
      if (retried && this.state.status === 'live') this.timer(() => void this.fillGap(), RECONCILE_MS);
    } catch (e) {
      if (this.failedFor(e) || generation !== this.generation || this.loaded) return;
      // Still `loading`: the list is not known, so it is neither shown as empty nor counted.
      this.set({ error: errorText(e) });
      this.firstRetry = this.timer(() => {
        this.firstRetry = null;
        this.retryFirst();
      }, Math.min(15_000, 1000 * 2 ** this.firstAttempt++));
    } finally {
      this.firstReading = false;
    }
  }

  /**
   * Ends the list for good on a 404 or 401; true when it did. A 401 means the session is gone
   * (expired, logged out elsewhere): the app shows the sign-in screen, as for any other call,
   * instead of leaving a page that looks signed in but can no longer do anything.
   */
  private failedFor(e: unknown): boolean {
    if (!(e instanceof ApiError) || (e.status !== 404 && e.status !== 401)) return false;
    this.end(e.status === 404 ? 'not_found' : 'signed_out');
    this.set({ error: e.message });
    signedOutOn(e);
    return true;
  }

  private open(): void {
    if (this.stopped) return;
    const source = new EventSource(`/api/stream/${encodeURIComponent(this.slug)}`);
    this.source = source;
    source.addEventListener('open', () => {
      this.attempt = 0;
      this.set({ status: 'live' });
      // The server answers again: a first page that failed is read now, not at its next backoff,
      // and an older page that failed meanwhile no longer says the server cannot be reached.
      this.retryFirst();
      if (this.loaded && this.state.error !== null) this.set({ error: null });
      this.timer(() => void this.fillGap(), RECONCILE_MS);
    });
    source.addEventListener('request', (ev) => {
      this.receive(JSON.parse(ev.data) as Capture);
    });
    source.addEventListener('end', (ev) => {
      const reason = (JSON.parse(ev.data) as { reason?: string }).reason ?? 'ended';
      this.end(reason);
      // The session reached its expiry: every call would now get 401, so the app shows sign-in.
      if (reason === 'session_expired') sessionExpired();
    });
    source.addEventListener('error', () => {
      if (this.stopped || this.state.status === 'ended') return;
      this.set({ status: 'reconnecting' });
      // CONNECTING: the browser retries by itself, with Last-Event-ID. CLOSED: it gave up (an HTTP error).
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        this.source = null;
        this.timer(() => void this.reopen(), Math.min(15_000, 1000 * 2 ** this.attempt++));
      }
    });
  }

  /** After the browser gave up: is the endpoint still readable? Then a new stream. */
  private async reopen(): Promise<void> {
    try {
      await this.fetchPage(undefined, 1);
      this.open();
    } catch (e) {
      if (this.failedFor(e)) return;
      this.timer(() => void this.reopen(), Math.min(15_000, 1000 * 2 ** this.attempt++));
    }
  }

  /** The first reason stays: a read refused after the stream said why (a 404 after `access_revoked`) says less. */
  private end(reason: string): void {
    this.source?.close();
    this.source = null;
    if (this.state.status === 'ended' && this.state.endReason !== null) return;
    this.set({ status: 'ended', endReason: reason });
  }

  /** Reads the newest pages until a capture already listed shows up, and merges what was missing. */
  private async fillGap(): Promise<void> {
    await this.firstPage;
    if (this.stopped || !this.loaded) return;
    const generation = this.generation;
    const found: Capture[] = [];
    let cursor: string | null = null;
    try {
      for (let i = 0; i < GAP_PAGES; i++) {
        const page = await this.fetchPage(cursor, PAGE_SIZE);
        if (this.stopped || generation !== this.generation) return;
        const fresh = page.items.filter((c) => !this.ids.has(c.id));
        found.push(...fresh);
        if (fresh.length < page.items.length || !page.hasMore) {
          for (const c of found) this.receive(c);
          return;
        }
        cursor = page.cursor;
      }
      // Too far behind to stitch: start over from what was just read.
      this.ids.clear();
      for (const c of found) this.ids.add(c.id);
      this.incoming = [];
      this.held = [];
      this.cursor = cursor;
      this.set({ items: found, held: 0, hasMore: true });
    } catch (e) {
      this.failedFor(e);
    }
  }

  private receive(capture: Capture): void {
    this.incoming.push(capture);
    if (this.frame === 0 && this.flushTimer === null) {
      this.frame = requestAnimationFrame(this.flush);
      // Animation frames stop in a hidden tab; keep merging there too, less often.
      this.flushTimer = setTimeout(this.flush, 250);
    }
  }

  private flush = (): void => {
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const batch = this.unseen(this.incoming);
    this.incoming = [];
    if (batch.length === 0) return;
    if (this.state.paused) {
      this.held.push(...batch);
      this.set({ held: this.held.length });
    } else {
      this.set({ items: this.merged(batch) });
    }
  };

  /** The captures not listed (or held) yet, now marked as known. */
  private unseen(captures: readonly Capture[]): Capture[] {
    const out: Capture[] = [];
    for (const c of captures) {
      if (this.ids.has(c.id)) continue;
      this.ids.add(c.id);
      out.push(c);
    }
    return out;
  }

  /** The shown list with `batch` (already deduplicated) added, newest first; stream batches are newer, so no sort of the list. */
  private merged(batch: readonly Capture[]): readonly Capture[] {
    const items = this.state.items;
    const sorted = batch.slice().sort(newestFirst);
    const head = items[0];
    const last = sorted[sorted.length - 1];
    if (!head || !last || last.id > head.id) return [...sorted, ...items];
    return [...items, ...sorted].sort(newestFirst);
  }
}
