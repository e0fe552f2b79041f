/**
 * The composition of the verbs' long-lived parts (src/services/build.ts): one mailer shared by
 * every flow, settings parsed once, and bus subscriptions that shutdown really drops.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalBus } from '../../src/bus/local';
import { encodeJson, subjects } from '../../src/bus/types';
import { systemClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices } from '../../src/services/build';
import { StreamWatches } from '../../src/services/stream/watches';
import { createSqliteCaptureStore } from '../../src/stores/captures/sqlite';
import { openPglite } from '../../src/stores/state/db';
import { seedPglite } from '../support/server';

const settle = () => Bun.sleep(10);

describe('StreamWatches', () => {
  test('hears announcements for watched keys until closed, then nothing', async () => {
    const bus = createLocalBus();
    const heard: string[] = [];
    const watches = new StreamWatches<string>(bus, subjects.endpointChanged, (d) => [JSON.parse(new TextDecoder().decode(d)).slug], (key) => heard.push(key));
    watches.add('a', 'w1');
    bus.publish(subjects.endpointChanged, encodeJson({ slug: 'a' }));
    bus.publish(subjects.endpointChanged, encodeJson({ slug: 'b' })); // not watched
    await settle();
    expect(heard).toEqual(['a']);
    watches.close();
    bus.publish(subjects.endpointChanged, encodeJson({ slug: 'a' }));
    await settle();
    expect(heard).toEqual(['a']);
    // A watch added after close subscribes nothing again.
    watches.add('a', 'w2');
    bus.publish(subjects.endpointChanged, encodeJson({ slug: 'a' }));
    await settle();
    expect(heard).toEqual(['a']);
    await bus.close();
  });
});

describe('createServices', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookcap-services-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('one mailer for every flow, the settings as config parsed them, and a close that ends the stream guards', async () => {
    await seedPglite(dir);
    const state = await openPglite(dir);
    const captures = createSqliteCaptureStore({ path: join(dir, 'captures.sqlite') });
    const bus = createLocalBus();
    const config = loadConfig({ DATA_DIR: dir, OUTBOUND_ALLOW: 'hooks.internal', AGENT_IDJAG_PROVIDERS: '[{"iss":"https://idp.example"}]' });
    const services = createServices({ config, db: state.db, captures, bus, clock: systemClock });
    const { ctx } = services;
    expect(ctx.agent.mailer).toBe(ctx.mailer);
    expect(ctx.agent.providers).toBe(config.agentIdjagProviders);
    expect(ctx.agent.providers.map((p) => p.iss)).toEqual(['https://idp.example']);
    expect(ctx.config.outboundAllow.allows('hooks.internal', 443, '10.0.0.1')).toBe(true);
    // The same secret every time it is asked for, generated once.
    expect(await ctx.secrets.codeHmac()).toBe(await ctx.secrets.codeHmac());

    let ended = 0;
    const watch = ctx.streams.endpoints.watch('gone-slug');
    watch.attach({ id: 'ep_x', expiresAt: null }, () => ended++);
    await services.close();
    // After close an announcement that the endpoint is gone no longer reaches the guard.
    bus.publish(subjects.endpointChanged, encodeJson({ slug: 'gone-slug' }));
    await Bun.sleep(100);
    expect(ended).toBe(0);
    watch.cancel();
    await bus.close();
    await captures.close();
    await state.close();
  });
});
