import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import {
  type WordPressBadgeApiDeps,
  wordPressBadgeApi,
} from '../../../shared/adapters/badges/wordpress-badge-api';
import { type BadgeFeedServices, runBadgeCycle } from '../../../shared/app/badges/badge-feed';
import type { ProviderRecordRef } from '../../../shared/app/ports';
import { parseConfig } from '../../../shared/config/load';
import type { EventEnvelope } from '../../../shared/domain/event-envelope';
import { EVENT_DETAIL_SCHEMAS } from '../../../shared/domain/event-schemas';
import { createSimulator, type Simulator } from '../../../simulator/server';
import { drivenSignalTimeouts, watched } from '../../helpers/driven-timers';

const START = Date.parse('2026-11-23T10:00:00.000Z');
const silent = { debug() {}, info() {}, warn() {}, error() {} };

const API_BADGE = {
  badge_name: 'Sale',
  badge_type: 'image',
  filter: 'all',
  badge_style: '<span>Sale</span>',
  badge_settings: { display: 'block' },
  priority: '1',
  status: '1',
  created_by: 'admin',
  valid_from: '',
  valid_to: '',
  created_at: '2026-11-23 12:00:00',
  updated_at: '2026-11-23 12:00:00',
};

type Answer = { status: number; body: string } | 'timeout' | 'network';

/** A badge API in the test: badges by id, what the list answers (default: all of them), every call counted. */
function fakeApi() {
  const badges = new Map<string, Record<string, unknown>>();
  const api = {
    badges,
    calls: [] as string[],
    listAnswer: undefined as (() => Answer) | undefined,
    put(id: string, overrides: Record<string, unknown> = {}) {
      badges.set(id, { ...API_BADGE, ...badges.get(id), ...overrides, id });
    },
    fetchImpl: async (url: string, init: RequestInit): Promise<Response> => {
      api.calls.push(url);
      const id = /\/badges\/([^/]+)$/.exec(url)?.[1];
      const answer: Answer =
        id !== undefined
          ? badges.has(id)
            ? { status: 200, body: JSON.stringify(badges.get(id)) }
            : {
                status: 404,
                body: JSON.stringify({ code: 'rest_badge_invalid_id', message: 'Invalid badge ID.' }),
              }
          : (api.listAnswer?.() ?? { status: 200, body: JSON.stringify([...badges.values()]) });
      if (answer === 'network') throw new TypeError('fetch failed');
      if (answer === 'timeout')
        return new Promise((_, reject) =>
          init.signal?.addEventListener('abort', () => reject(init.signal!.reason as Error)),
        );
      return new Response(answer.body, { status: answer.status });
    },
  };
  return api;
}

/** Services on the in-memory store, a clock to move, store reads counted. */
function world(
  fetchImpl: WordPressBadgeApiDeps['fetchImpl'],
  shop: Record<string, unknown> = {},
  start = START,
) {
  const config = parseConfig({
    management: { bearerToken: 'management-token-0123456789' },
    badges: { shops: { demo: { baseUrl: 'http://shop.test', pollSeconds: 60, timeoutMs: 200, ...shop } } },
  });
  const store = new MemoryStore();
  const reads = { count: 0 };
  const getRecord = store.getRecord.bind(store);
  store.getRecord = (ref: ProviderRecordRef, options?: Parameters<MemoryStore['getRecord']>[1]) => {
    reads.count++;
    return getRecord(ref, options);
  };
  let now = start;
  const metrics: Record<string, number> = {};
  // Read at each call: a test may wire a secret reader after the world is made.
  const deps: WordPressBadgeApiDeps = { fetchImpl };
  const services: BadgeFeedServices = {
    config,
    store,
    clock: { now: () => new Date(now) },
    log: silent,
    badgeApi: wordPressBadgeApi(deps),
    metrics: {
      count: (name, value = 1) => void (metrics[name] = (metrics[name] ?? 0) + value),
      timing: () => {},
      flush: () => {},
    },
  };
  return {
    store,
    services,
    deps,
    reads,
    metrics,
    advance: (seconds: number) => void (now += seconds * 1000),
    cycle: () => runBadgeCycle(services),
    types: () => store.published.map((e) => e.metadata.type),
    snapshot: () =>
      getRecord({ provider: 'badges', account: 'demo', namespace: 'snapshot', id: 'current' }).then((r) => {
        // Stored as a list of entries; keyed by id here (the ids of these tests are plain).
        const data = r?.data as { badges: { id: string }[] };
        return {
          ...data,
          badges: Object.fromEntries(data.badges.map(({ id, ...entry }) => [id, entry])),
        } as { badges: Record<string, { rev: number; badge: { badge_name: string } | null }> };
      }),
  };
}

const valid = (event: EventEnvelope) => EVENT_DETAIL_SCHEMAS[event.metadata.type].safeParse(event).success;

describe('badge feed against the simulator', () => {
  let sim: Simulator;
  const base = () => `${sim.url}/wp-json/cpbw/v1/badges`;
  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base()}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: 'Bearer sim-badge-token' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await response.json()) as { id: string };
  };
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${sim.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    sim = await createSimulator({ log: () => {}, badges: { demoBadges: false, auth: { type: 'bearer' } } });
  });
  afterAll(() => sim.close());
  beforeEach(() => sim.reset());

  /**
   * The simulator dates badges in real time: the relay's clock starts a second after now. A test creates
   * its badge before its world, so the badge is valid when the relay first reads it however long the
   * machine took between the two (a world made first, then a POST more than a second later on a loaded
   * machine, dated the badge after the relay's clock: a BadgeActivated the test did not expect).
   */
  const simWorld = () =>
    world(
      undefined,
      { baseUrl: sim.url, auth: { type: 'bearer', token: 'sim-badge-token' }, timeoutMs: 2000 },
      Date.now() + 1000,
    );
  const CREATE = {
    badge_name: 'Sale',
    badge_type: 'image',
    filter: 'all',
    badge_style: '<span>Sale</span>',
    badge_settings: { display: 'block' },
    priority: 1,
    status: 1,
  };

  it('publishes BadgeCreated, BadgeUpdated (with the changed fields) and BadgeDeleted for real changes', async () => {
    // Prepare
    const { id } = await send('POST', '', CREATE);
    const w = simWorld();
    // Act
    await w.cycle();
    await send('PUT', `/${id}`, { badge_name: 'Big sale' });
    w.advance(60);
    await w.cycle();
    await send('DELETE', `/${id}`);
    w.advance(60);
    await w.cycle();
    // Assess
    expect(w.types()).toEqual(['BadgeCreated', 'BadgeUpdated', 'BadgeDeleted']);
    const [created, updated, deleted] = w.store.published;
    expect(created!.data).toMatchObject({ shop: 'demo', badgeId: id, revision: 1, active: true });
    expect(updated!.data).toMatchObject({ revision: 2, badge: { badge_name: 'Big sale' } });
    expect(updated!.data.changedFields).toContain('badge_name');
    expect(deleted!.data).toMatchObject({ revision: 3, previous: { badge_name: 'Big sale' } });
    expect(created!.metadata.correlationId).toBe(`badges:demo:${id}`);
    expect(w.store.published.every(valid)).toBe(true);
  });

  it('publishes nothing when a read finds the badges unchanged', async () => {
    // Prepare
    await send('POST', '', CREATE);
    const w = simWorld();
    await w.cycle();
    // Act
    for (let i = 0; i < 3; i++) {
      w.advance(60);
      await w.cycle();
    }
    // Assess
    expect(w.types()).toEqual(['BadgeCreated']);
    expect(w.metrics.BadgeReads).toBe(4);
  });

  it('changes nothing on a 500 or a garbage answer, and records the failure', async () => {
    // Prepare
    const { id } = await send('POST', '', CREATE);
    const w = simWorld();
    await w.cycle();
    const before = await w.snapshot();
    await send('DELETE', `/${id}`);
    // Act
    for (const spec of ['status-5xx', 'garbage-body']) {
      await admin('PUT', '/_sim/badges/faults', { spec });
      w.advance(60);
      const result = await w.cycle();
      expect(result.shops[0]).toMatchObject({ read: true, ok: false });
    }
    // Assess
    expect(w.types()).toEqual(['BadgeCreated']);
    expect((await w.snapshot()).badges).toEqual(before.badges);
    expect(w.metrics.BadgeReadFailures).toBe(2);
    const failure = await w.store.getRecord({
      provider: 'badges',
      account: 'demo',
      namespace: 'read-failure',
      id: 'last',
    });
    expect(failure?.data).toMatchObject({ reason: 'garbage', consecutiveFailures: 2 });
    // The API healthy again, the deletion is seen.
    await admin('DELETE', '/_sim/badges/faults');
    w.advance(60);
    await w.cycle();
    expect(w.types()).toEqual(['BadgeCreated', 'BadgeDeleted']);
  });

  it('records a refused credential as a failed read', async () => {
    // A real HTTP round trip: the world's 200 ms timeout (for the fake API) is outlasted on loaded cores.
    const w = world(undefined, {
      baseUrl: sim.url,
      auth: { type: 'bearer', token: 'wrong-token-1234' },
      timeoutMs: 10_000,
    });
    const result = await w.cycle();
    expect(result.shops[0]!.error).toMatch(/^http: HTTP 401 rest_invalid_credentials/);
    expect(w.store.published).toEqual([]);
  });

  it('publishes BadgeExpired at the tick after the valid_to the simulator set', async () => {
    // Prepare
    const { id } = await send('POST', '', CREATE);
    const w = simWorld();
    await w.cycle();
    await admin('POST', `/_sim/badges/${id}/expire`, { inSeconds: 90 });
    // Act: the read sees the new valid_to; ticks every 20 s follow
    w.advance(60);
    await w.cycle();
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      w.advance(20);
      await w.cycle();
      seen.push(w.types().join(','));
    }
    // Assess
    expect(w.store.published[0]!.data.active).toBe(true);
    expect(w.store.published[1]!.data.changedFields).toContain('valid_to');
    expect(seen).toEqual([
      'BadgeCreated,BadgeUpdated',
      'BadgeCreated,BadgeUpdated,BadgeExpired',
      'BadgeCreated,BadgeUpdated,BadgeExpired',
    ]);
    expect(w.store.published.every(valid)).toBe(true);
  });
});

describe('badge feed', () => {
  it('publishes one event per change when two cycles read at once', async () => {
    // Prepare
    const api = fakeApi();
    const w = world(api.fetchImpl);
    api.put('1');
    api.put('2');
    // Act
    await Promise.all([w.cycle(), w.cycle()]);
    api.put('1', { badge_name: 'Changed' });
    w.advance(60);
    await Promise.all([w.cycle(), w.cycle(), w.cycle()]);
    // Assess
    expect(w.types().sort()).toEqual(['BadgeCreated', 'BadgeCreated', 'BadgeUpdated']);
    expect(new Set(w.store.published.map((e) => e.metadata.id)).size).toBe(3);
  });

  it('keeps one event per change when a cycle works from an older snapshot', async () => {
    // Prepare: a second store view that saw the badge before the update
    const api = fakeApi();
    const w = world(api.fetchImpl);
    api.put('1');
    await w.cycle();
    const stale = await w.snapshot();
    api.put('1', { badge_name: 'Changed' });
    w.advance(60);
    await w.cycle();
    // Act: the older snapshot comes back (a slower concurrent cycle wrote last); the badge changes again
    await w.store.putRecord({
      provider: 'badges',
      account: 'demo',
      namespace: 'snapshot',
      id: 'current',
      createdAt: new Date(START).toISOString(),
      data: stale as unknown as Record<string, unknown>,
    });
    w.advance(60);
    await w.cycle();
    api.put('1', { badge_name: 'Changed twice' });
    w.advance(60);
    await w.cycle();
    // Assess: r1 created, r2 updated once, r3 the second update
    expect(w.store.published.map((e) => [e.metadata.type, e.data.revision])).toEqual([
      ['BadgeCreated', 1],
      ['BadgeUpdated', 2],
      ['BadgeUpdated', 3],
    ]);
    expect(w.store.published[2]!.data.previous).toMatchObject({ badge_name: 'Changed' });
  });

  it('does not delete badges an empty list left out while their own reads still return them', async () => {
    // Prepare
    const api = fakeApi();
    const w = world(api.fetchImpl);
    api.put('1');
    api.put('2');
    await w.cycle();
    api.listAnswer = () => ({ status: 200, body: '[]' });
    // Act
    w.advance(60);
    await w.cycle();
    // Assess
    expect(w.types()).toEqual(['BadgeCreated', 'BadgeCreated']);
    expect(w.metrics.BadgeListInconsistent).toBe(2);
    expect(Object.keys((await w.snapshot()).badges).sort()).toEqual(['1', '2']);
    // One badge really deleted: only that one goes.
    api.badges.delete('2');
    w.advance(60);
    await w.cycle();
    expect(w.types()).toEqual(['BadgeCreated', 'BadgeCreated', 'BadgeDeleted']);
    expect(w.store.published[2]!.data.badgeId).toBe('2');
  });

  it('leaves absent badges unconfirmed (not deleted) when the cycle is out of time', async () => {
    // Prepare
    const api = fakeApi();
    const w = world(api.fetchImpl);
    api.put('1');
    await w.cycle();
    api.badges.delete('1');
    // Act
    w.advance(60);
    await runBadgeCycle(w.services, { budgetMs: 0 });
    // Assess
    expect(api.calls).toHaveLength(2);
    expect(w.types()).toEqual(['BadgeCreated']);
    w.advance(60);
    await w.cycle();
    expect(w.types()).toEqual(['BadgeCreated', 'BadgeDeleted']);
  });

  it('changes nothing on a timeout, a network error or a list that is not badges', async () => {
    // Prepare
    const api = fakeApi();
    const w = world(api.fetchImpl);
    api.put('1');
    await w.cycle();
    const before = await w.snapshot();
    api.badges.delete('1');
    const answers: Answer[] = [
      'timeout',
      'network',
      { status: 200, body: '<html>maintenance</html>' },
      { status: 200, body: JSON.stringify([{ id: '1', filter: { nope: true } }]) },
      { status: 200, body: JSON.stringify({ code: 'rest_no_route', message: 'No route' }) },
      { status: 503, body: JSON.stringify({ code: 'busy', message: 'Try later', data: { status: 503 } }) },
    ];
    // Act
    const errors: string[] = [];
    for (const answer of answers) {
      api.listAnswer = () => answer;
      w.advance(60);
      errors.push((await w.cycle()).shops[0]!.error!);
    }
    // Assess
    expect(errors.map((e) => e.split(':')[0])).toEqual([
      'timeout',
      'network',
      'garbage',
      'garbage',
      'garbage',
      'http',
    ]);
    expect(errors[5]).toBe('http: HTTP 503 busy: Try later');
    expect(w.types()).toEqual(['BadgeCreated']);
    expect((await w.snapshot()).badges).toEqual(before.badges);
    expect(w.metrics.BadgeReadFailures).toBe(6);
  });

  it('publishes BadgeActivated and BadgeExpired at the tick after their time, between reads', async () => {
    // Prepare: reads every hour, validity 10:00:30 → 10:01:30
    const api = fakeApi();
    const w = world(api.fetchImpl, { pollSeconds: 3600 });
    api.put('1', { valid_from: '2026-11-23T13:00:30+03:00', valid_to: '2026-11-23T10:01:30Z' });
    await w.cycle();
    expect(w.types()).toEqual(['BadgeCreated']);
    expect(w.store.published[0]!.data.active).toBe(false);
    // Act / Assess: ticks every 20 s
    const seen: string[][] = [];
    for (let i = 0; i < 6; i++) {
      w.advance(20);
      await w.cycle();
      seen.push(w.types().slice(1));
    }
    expect(seen).toEqual([
      [],
      ['BadgeActivated'],
      ['BadgeActivated'],
      ['BadgeActivated'],
      ['BadgeActivated', 'BadgeExpired'],
      ['BadgeActivated', 'BadgeExpired'],
    ]);
    expect(api.calls).toHaveLength(1);
    const [activated, expired] = w.store.published.slice(1);
    expect(activated!.metadata.occurredAt).toBe('2026-11-23T10:00:30.000Z');
    expect(expired!.data).toMatchObject({
      validTo: '2026-11-23T10:01:30.000Z',
      observedAt: '2026-11-23T10:01:40.000Z',
    });
    expect(w.store.published.every(valid)).toBe(true);
  });

  it('fires a moved valid_to at its new time, once', async () => {
    const api = fakeApi();
    const w = world(api.fetchImpl, { pollSeconds: 60 });
    api.put('1', { valid_to: '2026-11-23T10:05:00Z' });
    await w.cycle();
    api.put('1', { valid_to: '2026-11-23T10:03:00Z' });
    for (let i = 0; i < 10; i++) {
      w.advance(60);
      await Promise.all([w.cycle(), w.cycle()]);
    }
    expect(w.types()).toEqual(['BadgeCreated', 'BadgeUpdated', 'BadgeExpired']);
    expect(w.store.published[2]!.data.validTo).toBe('2026-11-23T10:03:00.000Z');
  });

  it('costs one record read per cycle when nothing is due, and calls proportional to the badges when reading', async () => {
    // Prepare
    const api = fakeApi();
    const w = world(api.fetchImpl, { pollSeconds: 600 });
    for (let i = 1; i <= 50; i++) api.put(String(i));
    await w.cycle();
    // Act: 100 ticks of 5 s (500 s < pollSeconds: no read due, no transition)
    const reads = w.reads.count;
    for (let i = 0; i < 100; i++) {
      w.advance(5);
      await w.cycle();
    }
    // Assess
    expect(w.reads.count - reads).toBe(100);
    expect(api.calls).toHaveLength(1);
    // Reading with the list empty costs one call per known badge (their confirmations), then stops.
    api.listAnswer = () => ({ status: 200, body: '[]' });
    w.advance(600);
    await w.cycle();
    expect(api.calls).toHaveLength(1 + 1 + 50);
    expect(w.types().filter((t) => t === 'BadgeDeleted')).toEqual([]);
  });

  it('reads the credential from secretId and scrubs it from recorded errors', async () => {
    // Prepare
    const api = fakeApi();
    const seen: string[] = [];
    const w = world(
      async (url, init) => {
        seen.push(String((init.headers as Record<string, string>).authorization));
        throw new TypeError(`connect refused while sending secret-token-from-sm to ${url}`);
      },
      { auth: { type: 'bearer' }, secretId: 'relay/badges/demo' },
    );
    void api;
    w.deps.readSecret = async (id) => (id === 'relay/badges/demo' ? '{"token":"secret-token-from-sm"}' : '');
    // Act
    const result = await w.cycle();
    // Assess
    expect(seen).toEqual(['Bearer secret-token-from-sm']);
    expect(result.shops[0]!.error).not.toContain('secret-token-from-sm');
    expect(result.shops[0]!.error).toContain('[REDACTED]');
  });

  it('publishes nothing when a read is refused as too large', async () => {
    // Prepare: a list whose snapshot would not fit a record
    const api = fakeApi();
    const w = world(api.fetchImpl);
    for (let i = 0; i < 80; i++) api.put(`big${i}`, { badge_style: 'x'.repeat(5000) });
    // Act
    const result = await w.cycle();
    // Assess
    expect(result.shops[0]!.error).toMatch(/^too-large:/);
    expect(w.store.published).toEqual([]);
    expect((await w.snapshot()).badges).toEqual({});
  });

  it('keeps the bearer token echoed in an error body out of the stored failure records', async () => {
    // Prepare: the shop echoes the Authorization header it refused
    const w = world(
      async (_url, init) => {
        const header = String((init.headers as Record<string, string>).authorization);
        return new Response(`refused ${header}`, { status: 401 });
      },
      { auth: { type: 'bearer', token: 'config-token-0123456789' } },
    );
    // Act
    await w.cycle();
    // Assess
    const failure = await w.store.getRecord({
      provider: 'badges',
      account: 'demo',
      namespace: 'read-failure',
      id: 'last',
    });
    const snapshot = (await w.snapshot()) as unknown as { lastError: string };
    expect(JSON.stringify(failure?.data)).not.toContain('config-token');
    expect(JSON.stringify(failure?.data)).toContain('[REDACTED]');
    expect(snapshot.lastError).not.toContain('config-token');
  });

  it('scrubs a token echoed across the excerpt boundary before the excerpt is cut', async () => {
    // Prepare: the echo puts the token where the old 120-character excerpt cut it (32 of 34 characters kept).
    const token = 'straddling-token-0123456789abcdefg';
    const w = world(
      async () => new Response(`${'x'.repeat(88)}Bearer ${token} was refused`, { status: 401 }),
      { auth: { type: 'bearer', token } },
    );
    // Act
    await w.cycle();
    // Assess
    const failure = await w.store.getRecord({
      provider: 'badges',
      account: 'demo',
      namespace: 'read-failure',
      id: 'last',
    });
    const snapshot = (await w.snapshot()) as unknown as { lastError: string };
    for (const text of [JSON.stringify(failure?.data), snapshot.lastError])
      expect(text).not.toContain(token.slice(0, 12));
    expect(snapshot.lastError).toContain('[REDACTED]');
  });

  it('keeps a short secret password and the Basic credential out of the stored failure records', async () => {
    // Prepare: the secret's password is short; the shop echoes it and the header
    const w = world(
      async (_url, init) => {
        const header = String((init.headers as Record<string, string>).authorization);
        return new Response(`bad password pw1 for ${header}`, { status: 401 });
      },
      {
        auth: { type: 'basic', username: 'shopuser', password: 'unused-placeholder' },
        secretId: 'relay/badges/demo',
      },
    );
    w.deps.readSecret = async () => '{"password":"pw1"}';
    const encoded = Buffer.from('shopuser:pw1').toString('base64');
    // Act
    const result = await w.cycle();
    // Assess
    const failure = await w.store.getRecord({
      provider: 'badges',
      account: 'demo',
      namespace: 'read-failure',
      id: 'last',
    });
    const stored = JSON.stringify([failure?.data, await w.snapshot(), result]);
    expect(stored).not.toContain('pw1');
    expect(stored).not.toContain(encoded);
  });

  it('reads a badge with a zero validity date as having no bound and records the date', async () => {
    // Prepare
    const api = fakeApi();
    const w = world(api.fetchImpl);
    api.put('1', { valid_to: '0000-00-00 00:00:00' });
    api.put('2');
    // Act
    const result = await w.cycle();
    // Assess
    expect(result.shops[0]!.ok).toBe(true);
    expect(w.types()).toEqual(['BadgeCreated', 'BadgeCreated']);
    expect(w.store.published[0]!.data.badge).toMatchObject({ valid_to: null });
    expect(await w.snapshot()).toMatchObject({
      invalidDates: [{ badgeId: '1', field: 'valid_to', value: '0000-00-00 00:00:00' }],
    });
  });

  it('publishes no revert when an older list read lands after a newer change was recorded', async () => {
    // Prepare: r1 "One", then r2 "Three" recorded by a faster cycle; the slower cycle still holds r1
    const api = fakeApi();
    const w = world(api.fetchImpl);
    api.put('1', { badge_name: 'One' });
    await w.cycle();
    const stale = await w.snapshot();
    api.put('1', { badge_name: 'Three' });
    w.advance(60);
    await w.cycle();
    await w.store.putRecord({
      provider: 'badges',
      account: 'demo',
      namespace: 'snapshot',
      id: 'current',
      createdAt: new Date(START).toISOString(),
      data: stale as unknown as Record<string, unknown>,
    });
    // Act: the slower cycle's list (read before "Three") says "Two"; then the shop says "Three" again
    api.put('1', { badge_name: 'Two' });
    w.advance(60);
    await w.cycle();
    api.put('1', { badge_name: 'Three' });
    w.advance(60);
    await w.cycle();
    // Assess
    expect(w.store.published.map((e) => [e.metadata.type, e.data.revision])).toEqual([
      ['BadgeCreated', 1],
      ['BadgeUpdated', 2],
    ]);
    expect((await w.snapshot()).badges['1']).toMatchObject({ rev: 2, badge: { badge_name: 'Three' } });
  });

  it('publishes BadgeExpired for a valid_to that passed while the snapshot write after its fact had failed', async () => {
    // Prepare: the first read writes the fact, then the snapshot write fails (a crash between the two)
    const api = fakeApi();
    const w = world(api.fetchImpl);
    api.put('1', { valid_to: '2026-11-23T10:05:00Z' });
    const putRecord = w.store.putRecord.bind(w.store);
    let failSnapshot = true;
    w.store.putRecord = async (record) => {
      if (failSnapshot && record.namespace === 'snapshot') throw new Error('throttled');
      return putRecord(record);
    };
    await w.cycle();
    failSnapshot = false;
    // Act: the next reads come after valid_to
    for (const seconds of [360, 60, 120]) {
      w.advance(seconds);
      await w.cycle();
    }
    // Assess
    expect(w.types()).toEqual(['BadgeCreated', 'BadgeExpired']);
  });

  it('gives up a badge call that outlasts the cycle budget when the budget runs out', async () => {
    // Prepare: a list that never answers, a per-call timeout far longer than the budget; the timeouts
    // expire only when the test says so.
    const api = fakeApi();
    const w = world(api.fetchImpl, { timeoutMs: 30_000 });
    api.listAnswer = () => 'timeout';
    const timeouts = drivenSignalTimeouts();
    try {
      // Act: the cycle is waiting on the list when the budget (100 ms) runs out; the call's own 30 s never does.
      const cycle = watched(runBadgeCycle(w.services, { budgetMs: 100 }));
      await vi.waitFor(() => expect(api.calls).toHaveLength(1));
      expect(cycle.settled()).toBe(false);
      timeouts.expire(100);
      const result = await cycle.promise;
      // Assess: cut by the budget, not by the call's timeout.
      expect(result.shops[0]!.error).toBe("timeout: the cycle's time budget ran out");
    } finally {
      timeouts.restore();
    }
  });

  it('fails a shop with a secretId as an auth failure when no secret reader is wired, calling nobody', async () => {
    // Prepare
    const api = fakeApi();
    const w = world(api.fetchImpl, { auth: { type: 'bearer' }, secretId: 'relay/badges/demo' });
    w.deps.readSecret = undefined;
    // Act
    const result = await w.cycle();
    // Assess
    expect(result.shops[0]!.ok).toBe(false);
    expect(result.shops[0]!.error).toContain('no secret reader is wired');
    expect(api.calls).toEqual([]);
  });

  it('gives up a secret read that outlasts the cycle budget when the budget runs out', async () => {
    // Prepare: a secret read that never answers, a per-call timeout far longer than the budget; the
    // timeouts expire only when the test says so.
    const api = fakeApi();
    const w = world(api.fetchImpl, {
      timeoutMs: 30_000,
      auth: { type: 'bearer' },
      secretId: 'relay/badges/demo',
    });
    let asked = false;
    w.deps.readSecret = () => {
      asked = true;
      return new Promise<string>(() => {});
    };
    const timeouts = drivenSignalTimeouts();
    try {
      // Act: the cycle is waiting on the secret when the budget (100 ms) runs out; the call's own 30 s never does.
      const cycle = watched(runBadgeCycle(w.services, { budgetMs: 100 }));
      await vi.waitFor(() => expect(asked).toBe(true));
      expect(cycle.settled()).toBe(false);
      timeouts.expire(100);
      const result = await cycle.promise;
      // Assess
      expect(result.shops[0]!.ok).toBe(false);
      expect(result.shops[0]!.error).toMatch(/^timeout: secret "relay\/badges\/demo": no answer in time/);
      expect(api.calls).toEqual([]);
    } finally {
      timeouts.restore();
    }
  });

  it('refuses an answer over 2 MB as too large without publishing', async () => {
    // Prepare
    const api = fakeApi();
    const w = world(api.fetchImpl);
    api.listAnswer = () => ({ status: 200, body: `[${'"x",'.repeat(600_000)}"x"]` });
    // Act
    const result = await w.cycle();
    // Assess
    expect(result.shops[0]!.error).toMatch(/^too-large:/);
    expect(w.store.published).toEqual([]);
  });

  it('publishes no BadgeExpired for a valid_to the same read moved to the future or for a badge it deleted', async () => {
    // Prepare: two badges expiring at 10:05, read every 10 minutes
    const api = fakeApi();
    const w = world(api.fetchImpl, { pollSeconds: 600 });
    api.put('1', { valid_to: '2026-11-23T10:05:00Z' });
    api.put('2', { valid_to: '2026-11-23T10:05:00Z' });
    await w.cycle();
    // Act: before the next tick, 1 is extended and 2 deleted
    api.put('1', { valid_to: '2026-11-30T10:00:00Z' });
    api.badges.delete('2');
    w.advance(600);
    await w.cycle();
    // Assess
    expect(w.types()).toEqual(['BadgeCreated', 'BadgeCreated', 'BadgeUpdated', 'BadgeDeleted']);
  });

  it('publishes neither BadgeActivated nor BadgeExpired for a badge whose valid_from is not before its valid_to', async () => {
    // Prepare
    const api = fakeApi();
    const w = world(api.fetchImpl);
    api.put('1', { valid_from: '2026-11-23T10:10:00Z', valid_to: '2026-11-23T10:05:00Z' });
    // Act
    for (let i = 0; i < 15; i++) {
      await w.cycle();
      w.advance(60);
    }
    // Assess
    expect(w.types()).toEqual(['BadgeCreated']);
  });

  it('fails a read whose answer says there are more pages, changing nothing', async () => {
    // Prepare
    const api = fakeApi();
    const w = world(async (url, init) => {
      const response = await api.fetchImpl(url, init);
      const headers = new Headers(response.headers);
      headers.set('x-wp-totalpages', '2');
      return new Response(await response.text(), { status: response.status, headers });
    });
    api.put('1');
    // Act
    const result = await w.cycle();
    // Assess
    expect(result.shops[0]!.error).toMatch(/^http:.*pages/);
    expect(w.store.published).toEqual([]);
  });

  it('does not take a route-level 404 (no such REST route) as a confirmed deletion', async () => {
    // Prepare: the badge is known, then the list leaves it out and the single route is gone
    const api = fakeApi();
    const w = world(async (url, init) =>
      /\/badges\/[^/]+$/.test(url)
        ? new Response(JSON.stringify({ code: 'rest_no_route', message: 'No route was found' }), {
            status: 404,
          })
        : api.fetchImpl(url, init),
    );
    api.put('1');
    await w.cycle();
    api.listAnswer = () => ({ status: 200, body: '[]' });
    // Act
    w.advance(60);
    await w.cycle();
    // Assess
    expect(w.types()).toEqual(['BadgeCreated']);
    expect((await w.snapshot()).badges['1']!.badge).not.toBeNull();
  });

  it('publishes BadgeDeleted for a badge created in a cycle whose snapshot write failed, deleted before the next read', async () => {
    // Prepare: the first read writes the badge's fact, then the snapshot write fails
    const api = fakeApi();
    const w = world(api.fetchImpl);
    api.put('1');
    const putRecord = w.store.putRecord.bind(w.store);
    let failSnapshot = true;
    w.store.putRecord = async (record) => {
      if (failSnapshot && record.namespace === 'snapshot') throw new Error('throttled');
      return putRecord(record);
    };
    await w.cycle();
    failSnapshot = false;
    // Act: the badge is deleted before the next read
    api.badges.delete('1');
    w.advance(60);
    await w.cycle();
    // Assess
    expect(w.store.published.map((e) => [e.metadata.type, e.data.revision])).toEqual([
      ['BadgeCreated', 1],
      ['BadgeDeleted', 2],
    ]);
  });

  it('sends Basic credentials from the config', async () => {
    const headers: string[] = [];
    const w = world(
      async (_url, init) => {
        headers.push(String((init.headers as Record<string, string>).authorization));
        return new Response('[]', { status: 200 });
      },
      { auth: { type: 'basic', username: 'shop', password: 'shop-password-1' } },
    );
    await w.cycle();
    expect(headers).toEqual([`Basic ${Buffer.from('shop:shop-password-1').toString('base64')}`]);
  });
});

describe('badge feed: hostile badge ids', () => {
  /** A world whose log warnings are collected. */
  const watched = (api: ReturnType<typeof fakeApi>) => {
    const w = dynamoLike(world(api.fetchImpl));
    const warnings: { message: string; fields: Record<string, unknown> }[] = [];
    w.services.log = {
      ...silent,
      warn: (message: string, fields?: Record<string, unknown>) =>
        void warnings.push({ message, fields: fields ?? {} }),
    };
    return { ...w, warnings };
  };
  const rawSnapshot = (w: ReturnType<typeof world>) =>
    w.store.records.get('badges#demo#snapshot#current')?.data as Record<string, unknown>;

  /**
   * The records go through what DynamoDB does to them: the document client's marshalling both ways (an
   * own `constructor` member is refused, a `__proto__` one read back becomes the prototype) and the
   * partition key's 2048 bytes.
   */
  const dynamoLike = (w: ReturnType<typeof world>) => {
    const store = w.store;
    const through = <T extends { data: Record<string, unknown> }>(record: T): T => {
      const pk = `REC#${(record as unknown as ProviderRecordRef).provider}#${(record as unknown as ProviderRecordRef).account}#${(record as unknown as ProviderRecordRef).namespace}#${(record as unknown as ProviderRecordRef).id}`;
      if (Buffer.byteLength(pk) > 2048) throw new Error('ValidationException: key too large');
      const options = { removeUndefinedValues: true, convertClassInstanceToMap: false };
      return { ...record, data: unmarshall(marshall(record.data, options)) };
    };
    const [get, put, putIfAbsent] = [
      store.getRecord.bind(store),
      store.putRecord.bind(store),
      store.putRecordIfAbsent.bind(store),
    ];
    store.getRecord = async (ref, options) => {
      through({ ...ref, data: {} });
      const record = await get(ref, options);
      return record ? through(record) : undefined;
    };
    store.putRecord = async (record) => put(through(record));
    store.putRecordIfAbsent = async (record, options) => putIfAbsent(through(record), options);
    return w;
  };

  for (const id of ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf']) {
    it(`keeps a badge with the id ${id} like any other, its changes and the other badges' published once`, async () => {
      // Prepare
      const api = fakeApi();
      const w = watched(api);
      api.put('1');
      api.put(id);
      // Act
      await w.cycle();
      w.advance(60);
      await w.cycle();
      api.put('1', { badge_name: 'Changed' });
      api.put(id, { badge_name: 'Hostile changed' });
      w.advance(60);
      const result = await w.cycle();
      w.advance(60);
      await w.cycle();
      // Assess
      expect(result.shops[0]).toMatchObject({ ok: true, events: 2 });
      expect(w.store.published.map((e) => [e.metadata.type, e.data.badgeId, e.data.revision])).toEqual([
        ['BadgeCreated', '1', 1],
        ['BadgeCreated', id, 1],
        ['BadgeUpdated', '1', 2],
        ['BadgeUpdated', id, 2],
      ]);
      const stored = rawSnapshot(w);
      expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
      expect(Object.keys(stored).sort()).not.toContain('rev');
      expect((stored as { badge?: unknown }).badge).toBeUndefined();
      expect(JSON.parse(JSON.stringify(stored)).lastReadOk).toBe(true);
      expect(w.metrics.BadgeReadFailures).toBeUndefined();
    });
  }

  const BAD_IDS: [string, unknown][] = [
    ['over 2 KB', 'x'.repeat(3000)],
    ['just over the limit', '9'.repeat(129)],
    ['empty', ''],
    ['blank', '   '],
    ['a NUL', 'a\u0000b'],
    ['a newline', '12\n13'],
    ['a bidi override', '1\u202e2'],
    ['missing', undefined],
  ];
  for (const [name, bad] of BAD_IDS) {
    it(`refuses a badge whose id is ${name}, reports it once, and publishes the rest of the feed`, async () => {
      // Prepare
      const api = fakeApi();
      const w = watched(api);
      api.put('1');
      const hostile = { ...API_BADGE, id: bad };
      api.listAnswer = () => ({ status: 200, body: JSON.stringify([...api.badges.values(), hostile]) });
      // Act
      const first = await w.cycle();
      w.advance(60);
      await w.cycle();
      api.put('1', { badge_name: 'Changed' });
      w.advance(60);
      const third = await w.cycle();
      // Assess
      expect(first.shops[0]).toMatchObject({ ok: true });
      expect(third.shops[0]).toMatchObject({ ok: true, events: 1 });
      expect(w.types()).toEqual(['BadgeCreated', 'BadgeUpdated']);
      expect(w.metrics.BadgeRefused).toBe(1);
      expect(w.metrics.BadgeReadFailures).toBeUndefined();
      const refusedLogs = w.warnings.filter((l) => /refused/.test(l.message));
      expect(refusedLogs).toHaveLength(1);
      const record = w.store.records.get('badges#demo#refused#last');
      expect(record?.data).toMatchObject({
        badges: [expect.objectContaining({ reason: expect.any(String) })],
      });
      // Nothing of the id beyond a short, printable excerpt is kept
      const stored = JSON.stringify([record?.data, rawSnapshot(w), refusedLogs]);
      expect(stored.length).toBeLessThan(4000);
      expect(stored).not.toMatch(/\p{Cc}|\u202e/u);
    });
  }

  it('reports a refused id again only after it had left the list', async () => {
    // Prepare
    const api = fakeApi();
    const w = watched(api);
    api.put('1');
    let hostile = true;
    api.listAnswer = () => ({
      status: 200,
      body: JSON.stringify([...api.badges.values(), ...(hostile ? [{ ...API_BADGE, id: 'a\u0001' }] : [])]),
    });
    // Act
    for (const present of [true, true, false, true]) {
      hostile = present;
      await w.cycle();
      w.advance(60);
    }
    // Assess
    expect(w.metrics.BadgeRefused).toBe(2);
  });

  it('never takes a refused id from the list as a deletion to confirm', async () => {
    // Prepare
    const api = fakeApi();
    const w = watched(api);
    api.put('1');
    api.listAnswer = () => ({
      status: 200,
      body: JSON.stringify([...api.badges.values(), { ...API_BADGE, id: 'y'.repeat(5000) }]),
    });
    // Act
    await w.cycle();
    w.advance(60);
    await w.cycle();
    // Assess: two list calls, no single-badge call
    expect(api.calls).toHaveLength(2);
  });
});

describe('badge feed config', () => {
  const parse = (shop: Record<string, unknown>) => () =>
    parseConfig({
      management: { bearerToken: 'management-token-0123456789' },
      badges: { shops: { demo: shop } },
    });

  it('names the key of a problem', () => {
    expect(parse({ baseUrl: 'ftp://shop' })).toThrow(/badges\.shops\.demo\.baseUrl/);
    expect(parse({ baseUrl: 'https://shop', auth: { type: 'bearer' } })).toThrow(
      /badges\.shops\.demo\.auth: the password or token/,
    );
    expect(parse({ baseUrl: 'https://shop', pollSeconds: 0 })).toThrow(/badges\.shops\.demo\.pollSeconds/);
  });

  it('defaults restPrefix, auth, pollSeconds and timeoutMs', () => {
    expect(parse({ baseUrl: 'https://shop' })().badges.shops.demo).toEqual({
      baseUrl: 'https://shop',
      restPrefix: 'wp-json',
      auth: { type: 'none' },
      pollSeconds: 60,
      timeoutMs: 5000,
    });
  });
});
