/**
 * Whether this node reaches a server backend, for /healthz: one cheap read every few seconds in
 * the background, so the health answer never waits on the backend. A check that fails, or has not
 * answered within its timeout (a partition where no RST comes back), marks it unreachable until
 * one succeeds. Used for Postgres (`backends.stateReachable`, `SELECT 1`) and ClickHouse
 * (`backends.capturesReachable`, one row read from the captures table); the embedded PGlite and
 * SQLite run inside the process and are not probed.
 */
export interface BackendProbeOptions {
  everyMs?: number;
  timeoutMs?: number;
}

/** One read; `signal` aborts when the check's timeout passes (a client that can, cancels the query). */
export type ProbeRead = (signal: AbortSignal) => Promise<unknown>;

export class BackendProbe {
  private ok = true;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private readonly everyMs: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly read: ProbeRead,
    opts: BackendProbeOptions = {},
  ) {
    this.everyMs = opts.everyMs ?? 5_000;
    this.timeoutMs = opts.timeoutMs ?? 2_000;
  }

  /** True unless the last check failed or timed out (true before the first: start-up just opened it). */
  get reachable(): boolean {
    return this.ok;
  }

  start(): void {
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.check().finally(() => this.schedule()), this.everyMs);
    this.timer.unref?.();
  }

  private async check(): Promise<void> {
    const abort = new AbortController();
    let timeout: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<boolean>((resolve) => {
      timeout = setTimeout(() => {
        abort.abort();
        resolve(false);
      }, this.timeoutMs);
    });
    let answered: Promise<boolean>;
    try {
      answered = this.read(abort.signal).then(
        () => true,
        () => false,
      );
    } catch {
      answered = Promise.resolve(false);
    }
    try {
      this.ok = await Promise.race([answered, late]);
    } finally {
      clearTimeout(timeout);
    }
  }
}
