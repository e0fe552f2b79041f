/**
 * Whether this node reaches Postgres, for /healthz (`backends.stateReachable`): a `SELECT 1` every
 * few seconds in the background, so the health answer never waits on the database. A check that
 * fails, or has not answered within its timeout (a partition where no RST comes back), marks it
 * unreachable until one succeeds. PGlite runs inside the process and is not probed.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../stores/state/db';

export interface StateProbeOptions {
  everyMs?: number;
  timeoutMs?: number;
}

export class StateProbe {
  private ok = true;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private readonly everyMs: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly db: Db,
    opts: StateProbeOptions = {},
  ) {
    this.everyMs = opts.everyMs ?? 5_000;
    this.timeoutMs = opts.timeoutMs ?? 2_000;
  }

  /** True unless the last check failed or timed out (true before the first: start-up just migrated). */
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
    let timeout: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<boolean>((resolve) => {
      timeout = setTimeout(() => resolve(false), this.timeoutMs);
    });
    const answered = this.db.execute(sql`SELECT 1`).then(
      () => true,
      () => false,
    );
    try {
      this.ok = await Promise.race([answered, late]);
    } finally {
      clearTimeout(timeout);
    }
  }
}
