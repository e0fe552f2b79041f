/**
 * The sandbox of an unclaimed agent key (SPEC 4.9): a few ephemeral, capture-only endpoints that
 * only that key can see. No mock responses, notifications or signing: those need a claimed key.
 */
import { AppError } from '../../errors';
import { newSlug, randomId } from '../../ids';
import { durationWords } from '../../mail/duration-words';
import type { Capture } from '../../model/capture';
import { countLiveSandbox, findLiveSandbox, listLiveSandbox, lockKey } from '../../stores/state/agent';
import { insertEndpoint } from '../../stores/state/endpoints';
import type { ApiKeyRow, EndpointRow } from '../../stores/state/schema';
import type { Ctx, Principal } from '../context';
import { writeEndpoints } from '../endpoint-writes';
import { clampLimit } from '../requests';
import { scopeOf } from '../visibility';

/** Only an unclaimed key has a sandbox; a claimed key or a session uses the full API. */
export function requireUnclaimedKey(p: Principal): ApiKeyRow {
  if (p.kind !== 'agent') {
    throw new AppError('forbidden', 'the sandbox is for unclaimed agent keys; this credential uses /api/endpoints');
  }
  return p.key;
}

export const publicSandboxEndpoint = (ctx: Ctx, e: EndpointRow) => ({
  url: `${ctx.config.receiverUrl}/w/${e.slug}`,
  slug: e.slug,
  expiresAt: e.expiresAt ?? e.createdAt,
});

export async function createSandboxEndpoint(ctx: Ctx, key: ApiKeyRow) {
  const { sandboxMaxEndpoints, sandboxTtlMs } = ctx.config.agent;
  const row = await writeEndpoints(ctx, async (w) => {
    // The key's row lock serialises concurrent creates, so the cap cannot be overshot.
    if (!(await lockKey(w.tx, key.id))) throw new AppError('unauthorized', 'invalid or revoked API key');
    const now = ctx.clock.now();
    if ((await countLiveSandbox(w.tx, key.id, now)) >= sandboxMaxEndpoints) {
      throw new AppError('conflict', `this key already has ${sandboxMaxEndpoints} live sandbox endpoints; wait for one to expire or get the key claimed`);
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      const inserted = await insertEndpoint(w, {
        id: randomId('ep'),
        slug: newSlug(),
        name: `sandbox of ${key.name}`.slice(0, 200),
        ownerKeyId: key.id,
        expiresAt: now + sandboxTtlMs,
        createdAt: now,
      });
      if (inserted) return inserted;
    }
    throw new AppError('internal', 'could not allocate a unique slug');
  });
  return publicSandboxEndpoint(ctx, row);
}

export async function listSandboxEndpoints(ctx: Ctx, key: ApiKeyRow) {
  return (await listLiveSandbox(ctx.db, key.id, ctx.clock.now())).map((e) => publicSandboxEndpoint(ctx, e));
}

/** Captures of one of this key's live sandbox endpoints, newest first; 404 for any other slug. */
export async function sandboxRequests(ctx: Ctx, key: ApiKeyRow, slug: string, limit?: string): Promise<Capture[]> {
  const ep = await findLiveSandbox(ctx.db, key.id, slug, ctx.clock.now());
  if (!ep) {
    throw new AppError(
      'not_found',
      `this key has no live sandbox endpoint with this slug: sandbox endpoints expire ${durationWords(ctx.config.agent.sandboxTtlMs)} after creation; create another, or get the key claimed`,
    );
  }
  return ctx.captures.list(scopeOf(ep), clampLimit(ctx, limit));
}
