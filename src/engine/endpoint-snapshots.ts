/**
 * Loads endpoint snapshots for the receiver's cache (engine/endpoint-cache.ts) from the state store: the
 * endpoint rows of many slugs in one query, cut down to what the capture path reads.
 */
import { Value } from '@sinclair/typebox/value';
import type { Db } from '../stores/state/db';
import { findEndpointsBySlugs } from '../stores/state/endpoints';
import type { EndpointSnapshot } from './endpoint-cache';
import { SigningConfigSchema } from './signing';
import { standardWebhooksKey } from './signing/standard-webhooks';

/** The snapshots of those of `slugs` that exist, by slug; a slug absent from the map has no endpoint. */
export async function loadEndpointSnapshots(db: Db, slugs: readonly string[]): Promise<Map<string, EndpointSnapshot>> {
  const rows = await findEndpointsBySlugs(db, slugs);
  const out = new Map<string, EndpointSnapshot>();
  for (const row of rows) {
    out.set(row.slug, {
      id: row.id,
      slug: row.slug,
      userId: row.userId,
      ownerKeyId: row.ownerKeyId,
      mockResponse: row.mockResponse ?? null,
      notificationUrl: row.notificationUrl,
      signing: row.signing && Value.Check(SigningConfigSchema, row.signing) ? row.signing : null,
      notificationKey: notificationKeyOf(row.notificationSigning),
      expiresAt: row.expiresAt,
    });
  }
  return out;
}

/** The key of a stored notification secret; null when there is none (or it is not a valid secret). */
export function notificationKeyOf(stored: { secret: string } | null): Uint8Array | null {
  return stored && typeof stored.secret === 'string' ? (standardWebhooksKey(stored.secret) ?? null) : null;
}
