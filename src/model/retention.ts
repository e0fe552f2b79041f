/** Capture retention by plan (docs/retention.md). */

export const DAY_MS = 86_400_000;

/** The retention of the plan an account's `plan` names; an unknown name is `free`'s, as for quotas. */
export function retentionDays(plans: Readonly<Record<string, { retentionDays: number }>>, plan: string | null): number {
  return (plans[plan ?? 'free'] ?? plans.free)?.retentionDays ?? 7;
}
