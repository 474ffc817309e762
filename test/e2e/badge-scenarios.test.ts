import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runBadgeScenario } from '../../scripts/sim/badges';
import { type EventFeed, eventLine } from '../../scripts/sim/events';
import { createSimulator, type Simulator } from '../../simulator/server';
import { startTestRelay, type TestRelay } from '../helpers/relay';

/**
 * `npm run sim -- badge <create|update|delete|expire>` end to end, through the CLI's own scenario code:
 * the simulator's badge API (cpbw/v1) and an in-process relay whose badge feed reads it as shop demo.
 */
let relay: TestRelay;
let sim: Simulator;

beforeAll(async () => {
  sim = await createSimulator({ log: () => {}, badges: { demoBadges: false } });
  relay = await startTestRelay({
    reconciliation: { pollIntervalSeconds: 0.2 },
    // A read cut by its timeout is only retried a second later: on a loaded machine every read of the
    // simulator's shop could take over 2 s, and the event would never come.
    badges: { shops: { demo: { baseUrl: sim.url, pollSeconds: 1, timeoutMs: 10_000 } } },
  });
});

afterAll(async () => {
  await relay?.stop();
  await sim?.close();
});

/** Events the relay published after the feed was opened (its stream flushed on every look). */
function relayFeed(): EventFeed {
  const from = relay.sink.events.length;
  return {
    label: 'test relay',
    read: async () => {
      await relay.flush();
      return relay.sink.events.slice(from).map((envelope) => ({ envelope, line: eventLine(envelope) }));
    },
    settle: async () => {
      await relay.flush();
    },
  };
}

const context = () => ({
  simUrl: sim.url,
  restPrefix: 'wp-json',
  events: relayFeed(),
  // Each scenario ends when its event arrives: this only bounds a hang on a loaded machine.
  timeoutMs: 60_000,
  pollMs: 50,
});

describe('npm run sim -- badge …', () => {
  it('create → BadgeCreated for the new badge', async () => {
    const result = await runBadgeScenario(context(), 'create');

    expect(result.ok).toBe(true);
    expect(result.event?.envelope.metadata.type).toBe('BadgeCreated');
    expect(result.event?.envelope.data).toMatchObject({ shop: 'demo', badgeId: result.badgeId });
  });

  it('update → BadgeUpdated listing the changed fields', async () => {
    const result = await runBadgeScenario(context(), 'update');

    expect(result.ok).toBe(true);
    expect(result.event?.envelope.data).toMatchObject({
      changedFields: expect.arrayContaining(['badge_name', 'priority']),
    });
  });

  it('expire → BadgeExpired at valid_to, not at the next read', async () => {
    const result = await runBadgeScenario(context(), 'expire');

    expect(result.ok).toBe(true);
    const badge = (result.event?.envelope.data as { badge?: { valid_to?: string } }).badge;
    expect(Date.parse(result.event!.envelope.metadata.occurredAt)).toBe(Date.parse(badge!.valid_to!));
  }, 120_000);

  it('delete → BadgeDeleted, exactly once', async () => {
    const result = await runBadgeScenario(context(), 'delete');
    // A whole read of the shop that started after the deletion was seen: a second BadgeDeleted would
    // have been published by then.
    const seen = new Date().toISOString();
    await vi.waitFor(
      async () => {
        const shops = (await relay.admin('GET', '/v1/badges')).body.shops as { lastReadAt: string | null }[];
        expect(shops[0]!.lastReadAt! > seen).toBe(true);
      },
      { timeout: 60_000, interval: 50 },
    );
    await relay.flush();

    expect(result.ok).toBe(true);
    const deletions = relay.sink.events.filter(
      (e) =>
        e.metadata.type === 'BadgeDeleted' && (e.data as { badgeId?: string }).badgeId === result.badgeId,
    );
    expect(deletions).toHaveLength(1);
  });
});
