/** This month's captures against the plan's quota (GET /api/usage). */
import { useUsage } from '../../api/account';
import { exactTime } from '../../lib/format';
import { ErrorMessage } from '../../ui/error';
import { Section } from '../../ui/section';
import { BusyButton } from '../../ui/busy-button';

const day = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' });

export function UsageMeter() {
  const usage = useUsage();
  const u = usage.data;
  const percent = u && u.limit > 0 ? Math.min(100, (u.used / u.limit) * 100) : 0;
  return (
    <Section title="Usage" intro={<p>Captured requests this calendar month (UTC). Over the quota, the receiver answers senders 429 and stores nothing until the month ends.</p>}>
      {usage.error ? <ErrorMessage error={usage.error} /> : null}
      {u ? (
        <div className="usage">
          <p className="usage-numbers">
            <strong>{u.used.toLocaleString('en')}</strong> of {u.limit.toLocaleString('en')} captures used
            <span className="muted"> ({percent < 1 && u.used > 0 ? '<1' : Math.round(percent)}%)</span>
          </p>
          <meter className="usage-meter" min={0} max={Math.max(u.limit, 1)} low={u.limit * 0.8} high={u.limit * 0.95} optimum={0} value={u.used} aria-label="Captures used this month" />
          <dl className="facts">
            <dt>Plan</dt>
            <dd>{u.plan}</dd>
            <dt>Remaining</dt>
            <dd>{u.remaining.toLocaleString('en')}</dd>
            <dt>Resets</dt>
            <dd>
              <time dateTime={new Date(u.periodEnd).toISOString()} title={exactTime(u.periodEnd)}>
                {day.format(u.periodEnd)}
              </time>
            </dd>
          </dl>
          <BusyButton type="button" className="small" onClick={() => void usage.refetch()} busy={usage.isFetching}>
            Refresh
          </BusyButton>
        </div>
      ) : usage.isPending ? (
        <p className="muted">Loading usage…</p>
      ) : null}
    </Section>
  );
}
