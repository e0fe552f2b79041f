/**
 * An endpoint's notification secret: the Standard Webhooks `whsec_` secret its notifications are
 * signed with (docs/notifications.md, "Signatures"). The owner makes (or replaces) it and sees it
 * once; reads show only when it was made. Kept in the endpoint row like the inbound `signing`
 * secret (the notifier needs the key itself to sign), and written through writeEndpoints, so every
 * receiver node drops its cached snapshot and signs with the new key, or none, from then on.
 */
import { AppError } from '../errors';
import { newStandardWebhooksSecret } from '../engine/signing/standard-webhooks';
import * as store from '../stores/state/endpoints';
import type { UserRow } from '../stores/state/schema';
import type { Ctx } from './context';
import { writeEndpoints } from './endpoint-writes';
import { getOwnEndpoint } from './endpoints';

export interface NewNotificationSecret {
  /** `whsec_` + base64 of 32 random bytes: shown this once. */
  secret: string;
  /** ms since the epoch. */
  createdAt: number;
}

/** Makes a new secret for one of the caller's endpoints, replacing any it had (the old one signs nothing more). */
export async function rotateNotificationSecret(ctx: Ctx, user: UserRow, slug: string): Promise<NewNotificationSecret> {
  const current = await getOwnEndpoint(ctx, user, slug);
  const now = ctx.clock.now();
  const made: NewNotificationSecret = { secret: newStandardWebhooksSecret(), createdAt: now };
  const row = await writeEndpoints(ctx, (w) => store.updateEndpoint(w, current.id, { notificationSigning: made }, now));
  if (!row) throw new AppError('not_found', 'endpoint not found');
  return made;
}

/** Removes the secret: notifications go out unsigned again. Removing none is not an error. */
export async function removeNotificationSecret(ctx: Ctx, user: UserRow, slug: string): Promise<void> {
  const current = await getOwnEndpoint(ctx, user, slug);
  if (current.notificationSigning === null) return;
  const row = await writeEndpoints(ctx, (w) => store.updateEndpoint(w, current.id, { notificationSigning: null }, ctx.clock.now()));
  if (!row) throw new AppError('not_found', 'endpoint not found');
}
