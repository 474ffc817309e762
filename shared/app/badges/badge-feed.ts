import type { BadgeShopConfig, RelayConfig } from '../../config/schema';
import {
  type Badge,
  BADGE_PROVIDER,
  type BadgeChange,
  badgeCorrelationId,
  changeOf,
  diffBadges,
  dueTransitions,
  isActiveAt,
  marksAfterRead,
  nextTransitionAt,
  type InvalidBadgeDate,
  badgeIdProblem,
  BadgeReadError,
  type RefusedBadge,
  type ValidityMarks,
  type ValidityTransition,
} from '../../domain/badges';
import { buildEvent, type EventEnvelope } from '../../domain/events';
import { createScrubber, type Scrubber, scrubThenTruncate } from '../../util/redact';
import {
  type BadgeApi,
  type BadgeApiSource,
  type Clock,
  noMetrics,
  type ProviderRecordRef,
  type ProviderRecordStore,
  type RelayLogger,
  type RelayMetrics,
} from '../ports';
import {
  BADGE_EVENTS_METRIC,
  BADGE_INVALID_DATES_METRIC,
  BADGE_LIST_INCONSISTENT_METRIC,
  BADGE_READS_METRIC,
  BADGE_READ_FAILURES_METRIC,
  BADGE_REFUSED_METRIC,
} from '../../config/metric-names';

/**
 * The badge change feed (docs/badges.md): each configured shop's badge API is read every `pollSeconds`
 * by the poller's scheduler; a change becomes a fact record (first writer wins) whose outbox carries its
 * event, so concurrent or repeated reads publish each change once. Validity bounds passing are checked
 * on every cycle, from the shop's snapshot record alone.
 */

export interface BadgeFeedServices {
  config: Pick<RelayConfig, 'badges'>;
  store: ProviderRecordStore;
  clock: Clock;
  log: RelayLogger;
  metrics?: RelayMetrics;
  /** Opens a shop's badge API (the WordPress client adapter, wired by the runtime). */
  badgeApi?: BadgeApiSource;
}

/** Record namespaces of the feed (provider `badges`, account = the shop id). */
const SNAPSHOT_NAMESPACE = 'snapshot';
const FACT_NAMESPACE = 'fact';
const READ_FAILURE_NAMESPACE = 'read-failure';
/** `refused/last`: the badges a read refused for their id that no earlier read had refused. */
const REFUSED_NAMESPACE = 'refused';
/** Refused badges the snapshot remembers (so each is reported once) and a report lists, at most. */
const MAX_REFUSED = 50;
/** `pending/created`: the badges a read is about to create, written before their facts (see recoverCreated). */
const PENDING_NAMESPACE = 'pending';
/** Badges a pending record lists at most. */
const MAX_PENDING = 500;
/** Over this, the snapshot would not fit a DynamoDB item (400 KB): the read is refused and recorded. */
const MAX_SNAPSHOT_CHARS = 350_000;
/** Existing facts one change walks past at most (another reader's changes of the same badge). */
const MAX_CHAIN = 20;

/** One badge in the snapshot; `badge: null` is a tombstone (deleted: its revisions continue if it returns). */
interface SnapshotEntry extends ValidityMarks {
  rev: number;
  badge: Badge | null;
}

/**
 * The shop's snapshot as the feed works on it: badges in a Map, so no id (`__proto__`, `constructor`…)
 * can reach an object's members. Stored as version 2, badges as a list of entries (see toStored).
 */
interface SnapshotData {
  version: 2;
  badges: Map<string, SnapshotEntry>;
  /** Badges the last good read refused for their id (reported when first refused), at most MAX_REFUSED. */
  refused?: RefusedBadge[];
  /** When the next read is due (undefined: at once). */
  nextReadAt?: string;
  /** The earliest validity bound still to pass, or null. */
  nextTransitionAt: string | null;
  lastReadAt?: string;
  lastReadOk?: boolean;
  lastError?: string | null;
  consecutiveFailures: number;
  /** Validity dates of the last good read that were not dates (read as no bound), at most 20. */
  invalidDates?: InvalidBadgeDate[];
}

interface ShopCycleResult {
  shop: string;
  read: boolean;
  ok: boolean;
  events: number;
  error?: string;
}

export interface BadgeCycleResult {
  shops: ShopCycleResult[];
  /** Events published by this cycle (facts it wrote first). */
  events: number;
}

const snapshotRef = (shop: string): ProviderRecordRef => ({
  provider: BADGE_PROVIDER,
  account: shop,
  namespace: SNAPSHOT_NAMESPACE,
  id: 'current',
});

const pendingRef = (shop: string): ProviderRecordRef => ({
  provider: BADGE_PROVIDER,
  account: shop,
  namespace: PENDING_NAMESPACE,
  id: 'created',
});

interface PendingCreation {
  id: string;
  rev: number;
}

/**
 * Badges whose creation fact exists but which the snapshot does not list (a cycle died between the fact
 * and the snapshot): put into `badges` as known, with the fact's revision and state and marks judged from
 * its `observedAt`, so that the read finds them (a deletion meanwhile is confirmed and published).
 * Returns the ones recovered.
 */
async function recoverCreated(
  store: ProviderRecordStore,
  shop: string,
  badges: Map<string, SnapshotEntry>,
): Promise<PendingCreation[]> {
  const pending = await store.getRecord(pendingRef(shop), { consistent: true });
  const listed = (pending?.data.badges as PendingCreation[] | undefined) ?? [];
  const recovered: PendingCreation[] = [];
  for (const { id, rev } of Array.isArray(listed) ? listed : []) {
    if (badgeIdProblem(id) || typeof rev !== 'number') continue;
    if ((badges.get(id)?.rev ?? 0) >= rev) continue;
    const fact = await store.getRecord(
      { provider: BADGE_PROVIDER, account: shop, namespace: FACT_NAMESPACE, id: `${id}:r${rev}` },
      { consistent: true },
    );
    const data = fact?.data as { badge?: Badge | null; observedAt?: string } | undefined;
    if (!data?.badge) continue;
    badges.set(id, {
      rev,
      badge: data.badge,
      ...marksAfterRead(data.badge, undefined, data.observedAt ?? ''),
    });
    recovered.push({ id, rev });
  }
  return recovered;
}

const emptySnapshot = (): SnapshotData => ({
  version: 2,
  badges: new Map(),
  nextTransitionAt: null,
  consecutiveFailures: 0,
});

type StoredEntry = SnapshotEntry & { id: string };

/**
 * The stored record's data: the badges as a list of entries, never an object keyed by badge id (a
 * marshaller refuses an own `constructor` member and reads `__proto__` back as the prototype).
 */
function toStored(snapshot: SnapshotData): Record<string, unknown> {
  const badges: StoredEntry[] = [...snapshot.badges].map(([id, entry]) => ({ ...entry, id }));
  return { ...snapshot, version: 2, badges };
}

/**
 * A stored snapshot: version 2 (a list) or version 1 (an object keyed by id, own members only). Entries
 * whose id could not be a badge id now are dropped.
 */
function fromStored(data: Record<string, unknown>): SnapshotData {
  const raw = data.badges;
  const pairs: [unknown, unknown][] = Array.isArray(raw)
    ? raw.map((entry) => [(entry as Partial<StoredEntry> | null)?.id, entry])
    : raw && typeof raw === 'object'
      ? Object.entries(raw)
      : [];
  const badges = new Map<string, SnapshotEntry>();
  for (const [id, entry] of pairs) {
    if (typeof id !== 'string' || badgeIdProblem(id) || !entry || typeof entry !== 'object') continue;
    const { rev, badge, activated, expired } = entry as SnapshotEntry;
    badges.set(id, { rev, badge, activated: activated ?? null, expired: expired ?? null });
  }
  return {
    ...(data as unknown as Omit<SnapshotData, 'badges'>),
    version: 2,
    badges,
    refused: Array.isArray(data.refused) ? (data.refused as RefusedBadge[]) : undefined,
    nextTransitionAt: typeof data.nextTransitionAt === 'string' ? data.nextTransitionAt : null,
    consecutiveFailures: Number(data.consecutiveFailures ?? 0) || 0,
  };
}

const addSeconds = (iso: string, seconds: number) => new Date(Date.parse(iso) + seconds * 1000).toISOString();

/** How much of a failed read's text is kept (stored in the snapshot, logged), after scrubbing. */
const FAILURE_EXCERPT_CHARS = 300;

function changeEvent(shop: string, rev: number, change: BadgeChange, observedAt: string): EventEnvelope {
  const base = { shop, badgeId: change.badgeId, observedAt, revision: rev };
  const correlation = badgeCorrelationId(shop, change.badgeId);
  const discriminator = `r${rev}`;
  switch (change.kind) {
    case 'created':
      return buildEvent('BadgeCreated', correlation, discriminator, 'poll', observedAt, {
        ...base,
        badge: change.badge,
        active: isActiveAt(change.badge, observedAt),
      });
    case 'updated':
      return buildEvent('BadgeUpdated', correlation, discriminator, 'poll', observedAt, {
        ...base,
        badge: change.badge,
        previous: change.previous,
        changedFields: change.changedFields,
        active: isActiveAt(change.badge, observedAt),
      });
    case 'deleted':
      return buildEvent('BadgeDeleted', correlation, discriminator, 'poll', observedAt, {
        ...base,
        previous: change.previous,
      });
  }
}

function transitionEvent(shop: string, badge: Badge, transition: ValidityTransition, observedAt: string) {
  const data = {
    shop,
    badgeId: badge.id,
    observedAt,
    badge,
    validFrom: badge.valid_from,
    validTo: badge.valid_to,
  };
  return transition.kind === 'activated'
    ? buildEvent(
        'BadgeActivated',
        badgeCorrelationId(shop, badge.id),
        `activated:${transition.at}`,
        'poll',
        transition.at,
        data,
      )
    : buildEvent(
        'BadgeExpired',
        badgeCorrelationId(shop, badge.id),
        `expired:${transition.at}`,
        'poll',
        transition.at,
        data,
      );
}

/**
 * Records one badge's new state as the next fact of its chain: fact `<id>:r<rev>` holds the badge after
 * revision `rev` (null: deleted). When another reader wrote that revision first, its state wins: this read
 * may be older than that reader's (a slow list landing late), so nothing is written for the badge now and
 * the latest revision of the chain is adopted; the next read catches up with whatever is newer.
 * Returns the revision that now stands, its badge, when it was observed and the event this call published.
 */
async function recordChange(
  store: ProviderRecordStore,
  shop: string,
  badgeId: string,
  base: { rev: number; badge: Badge | null },
  after: Badge | null,
  observedAt: string,
): Promise<{ rev: number; badge: Badge | null; observedAt: string; published: EventEnvelope | undefined }> {
  const change = changeOf(badgeId, base.badge, after);
  if (!change) return { ...base, observedAt, published: undefined };
  const factRef = (rev: number): ProviderRecordRef => ({
    provider: BADGE_PROVIDER,
    account: shop,
    namespace: FACT_NAMESPACE,
    id: `${badgeId}:r${rev}`,
  });
  const rev = base.rev + 1;
  const event = changeEvent(shop, rev, change, observedAt);
  const { written, record } = await store.putRecordIfAbsent({
    ...factRef(rev),
    createdAt: observedAt,
    data: { kind: change.kind, rev, badge: after, observedAt },
    outbox: [event],
  });
  if (written) return { rev, badge: after, observedAt, published: event };
  let adopted = { rev, record };
  for (let step = 0; ; step++) {
    if (step >= MAX_CHAIN)
      throw new BadgeReadError(
        'store',
        `badge ${badgeId}: more than ${MAX_CHAIN} revisions written by others`,
      );
    const later = await store.getRecord(factRef(adopted.rev + 1), { consistent: true });
    if (!later) break;
    adopted = { rev: adopted.rev + 1, record: later };
  }
  const data = adopted.record.data as { badge?: Badge | null; observedAt?: string };
  return {
    rev: adopted.rev,
    badge: data.badge ?? null,
    observedAt: data.observedAt ?? observedAt,
    published: undefined,
  };
}

async function recordTransition(
  store: ProviderRecordStore,
  shop: string,
  badge: Badge,
  transition: ValidityTransition,
  observedAt: string,
): Promise<EventEnvelope | undefined> {
  const event = transitionEvent(shop, badge, transition, observedAt);
  const { written } = await store.putRecordIfAbsent({
    provider: BADGE_PROVIDER,
    account: shop,
    namespace: FACT_NAMESPACE,
    id: `${badge.id}:${transition.kind}:${transition.at}`,
    createdAt: observedAt,
    data: { kind: transition.kind, at: transition.at, badge, observedAt },
    outbox: [event],
  });
  return written ? event : undefined;
}

function earliestTransition(badges: Map<string, SnapshotEntry>, now: string): string | null {
  let next: string | null = null;
  for (const entry of badges.values()) {
    if (!entry.badge) continue;
    // A bound passed but not marked (a fact adopted from before it passed): due at once.
    const at = dueTransitions(entry.badge, entry, now).length
      ? now
      : nextTransitionAt(entry.badge, entry, now);
    if (at && (next === null || at < next)) next = at;
  }
  return next;
}

/** One shop's cycle: what every step reads, and what they leave for the snapshot and the metrics. */
interface ShopCycle {
  services: BadgeFeedServices;
  shopId: string;
  now: string;
  metrics: RelayMetrics;
  /** The shop's snapshot, updated in place by the steps and saved at the end of the cycle. */
  snapshot: SnapshotData;
  /** Events of the facts this cycle wrote, pushed as each is written (so a later failure keeps them counted). */
  published: EventEnvelope[];
}

/** The shop's list, its dates that are not dates reported (they are read as no bound). */
async function listBadges(cycle: ShopCycle, api: BadgeApi): Promise<Awaited<ReturnType<BadgeApi['list']>>> {
  const listed = await api.list();
  const { invalidDates } = listed;
  if (invalidDates.length) {
    cycle.metrics.count(BADGE_INVALID_DATES_METRIC, invalidDates.length, { shop: cycle.shopId });
    cycle.services.log.warn('badge validity dates that are not dates: read as no bound', {
      shop: cycle.shopId,
      invalidDates: invalidDates.slice(0, 20),
    });
  }
  return listed;
}

/** Absent from the list is not deleted: only the badge's own 404 confirms it. */
async function confirmDeletions(
  api: BadgeApi,
  missing: Iterable<string>,
  known: Map<string, Badge>,
  deadline: number,
): Promise<{ deletions: BadgeChange[]; unconfirmed: string[] }> {
  const deletions: BadgeChange[] = [];
  const unconfirmed: string[] = [];
  for (const id of missing) {
    // Out of time (the Lambda's budget): the rest stay as they are until the next read.
    if (Date.now() >= deadline) {
      unconfirmed.push(id);
      continue;
    }
    const single = await api.get(id);
    if (single === null) deletions.push({ kind: 'deleted', badgeId: id, previous: known.get(id)! });
    else unconfirmed.push(id);
  }
  return { deletions, unconfirmed };
}

/** Size first: a refused read writes (hence publishes) nothing. */
function refuseOversizedSnapshot(
  cycle: ShopCycle,
  applied: BadgeChange[],
  read: { listed: number; invalidDates: InvalidBadgeDate[]; refused: RefusedBadge[] },
): void {
  const { snapshot, now } = cycle;
  const predicted = new Map(snapshot.badges);
  for (const change of applied) {
    const previous = snapshot.badges.get(change.badgeId);
    const after = change.kind === 'deleted' ? null : change.badge;
    predicted.set(
      change.badgeId,
      after
        ? { rev: (previous?.rev ?? 0) + 1, badge: after, ...marksAfterRead(after, previous, now) }
        : { rev: (previous?.rev ?? 0) + 1, badge: null, activated: null, expired: null },
    );
  }
  const { invalidDates, refused } = read;
  if (
    JSON.stringify(toStored({ ...snapshot, badges: predicted, lastError: null, invalidDates, refused }))
      .length > MAX_SNAPSHOT_CHARS
  )
    throw new BadgeReadError(
      'too-large',
      `snapshot over ${MAX_SNAPSHOT_CHARS} characters (${read.listed} badges)`,
    );
}

/**
 * Before the facts: the badges about to be created (and those recovered, not yet in a snapshot), so a
 * cycle dying before its snapshot leaves them findable by the next read.
 */
async function notePendingCreations(
  cycle: ShopCycle,
  recovered: PendingCreation[],
  applied: BadgeChange[],
): Promise<void> {
  const creating = [
    ...recovered,
    ...applied.flatMap((change) =>
      change.kind === 'created'
        ? [{ id: change.badgeId, rev: (cycle.snapshot.badges.get(change.badgeId)?.rev ?? 0) + 1 }]
        : [],
    ),
  ];
  if (creating.length)
    await cycle.services.store.putRecord({
      ...pendingRef(cycle.shopId),
      createdAt: cycle.now,
      data: { badges: creating.slice(0, MAX_PENDING) },
    });
}

/** Writes each change's fact; the badges as they stand after them (another reader's facts included). */
async function recordChanges(cycle: ShopCycle, applied: BadgeChange[]): Promise<Map<string, SnapshotEntry>> {
  const { snapshot } = cycle;
  const next = new Map(snapshot.badges);
  for (const change of applied) {
    const previous = snapshot.badges.get(change.badgeId);
    const after = change.kind === 'deleted' ? null : change.badge;
    const {
      rev,
      badge: standing,
      observedAt: factObservedAt,
      published: event,
    } = await recordChange(
      cycle.services.store,
      cycle.shopId,
      change.badgeId,
      { rev: previous?.rev ?? 0, badge: previous?.badge ?? null },
      after,
      cycle.now,
    );
    if (event) cycle.published.push(event);
    // A fact written earlier (a crash before its snapshot, another reader): its bounds are judged
    // from when it was observed, so one that passed since still fires.
    next.set(
      change.badgeId,
      standing
        ? { rev, badge: standing, ...marksAfterRead(standing, previous, factObservedAt) }
        : { rev, badge: null, activated: null, expired: null },
    );
  }
  return next;
}

function warnUnconfirmed(cycle: ShopCycle, unconfirmed: string[]): void {
  if (!unconfirmed.length) return;
  cycle.metrics.count(BADGE_LIST_INCONSISTENT_METRIC, unconfirmed.length, { shop: cycle.shopId });
  cycle.services.log.warn(
    'badge list left out badges not confirmed deleted (still there, or no time): kept',
    {
      shop: cycle.shopId,
      badgeIds: unconfirmed.slice(0, 20),
    },
  );
}

/** Refused for their id: reported when first refused (not again while the list keeps them). */
async function reportNewlyRefused(
  cycle: ShopCycle,
  refusedKept: RefusedBadge[],
  refusedInRead: number,
): Promise<void> {
  const { services, shopId, now } = cycle;
  const reported = new Set((cycle.snapshot.refused ?? []).map((badge) => badge.key));
  const newlyRefused = refusedKept.filter((badge) => !reported.has(badge.key));
  if (!newlyRefused.length) return;
  for (const badge of newlyRefused)
    cycle.metrics.count(BADGE_REFUSED_METRIC, 1, { shop: shopId, reason: badge.reason });
  services.log.warn('badge refused: its id cannot be kept; the rest of the read goes on', {
    shop: shopId,
    refused: newlyRefused.slice(0, 20),
  });
  await services.store.putRecord({
    provider: BADGE_PROVIDER,
    account: shopId,
    namespace: REFUSED_NAMESPACE,
    id: 'last',
    createdAt: now,
    data: { at: now, badges: newlyRefused.slice(0, 20), refusedInRead },
  });
}

/** One read of the shop's badges: each change a fact, the snapshot updated; any failure throws. */
async function readShop(cycle: ShopCycle, api: BadgeApi, deadline: number): Promise<void> {
  const { services, shopId, snapshot } = cycle;
  const { badges: list, invalidDates, refused } = await listBadges(cycle, api);
  const recovered = await recoverCreated(services.store, shopId, snapshot.badges);
  const known = new Map(
    [...snapshot.badges].flatMap(([id, entry]) => (entry.badge ? [[id, entry.badge] as const] : [])),
  );
  const { changes, missing } = diffBadges(known, list);
  const { deletions, unconfirmed } = await confirmDeletions(api, missing, known, deadline);
  const applied = [...changes, ...deletions];
  const refusedKept = refused.slice(0, MAX_REFUSED);
  refuseOversizedSnapshot(cycle, applied, { listed: list.length, invalidDates, refused: refusedKept });
  await notePendingCreations(cycle, recovered, applied);
  const next = await recordChanges(cycle, applied);
  warnUnconfirmed(cycle, unconfirmed);
  await reportNewlyRefused(cycle, refusedKept, refused.length);
  const candidate: SnapshotData = {
    ...snapshot,
    badges: next,
    refused: refusedKept,
    lastReadOk: true,
    lastError: null,
    consecutiveFailures: 0,
    invalidDates: invalidDates.slice(0, 20),
  };
  Object.assign(snapshot, candidate);
  cycle.metrics.count(BADGE_READS_METRIC, 1, { shop: shopId });
}

/** A failed read changes no badge: the failure is kept on the snapshot and in its own record. */
async function recordReadFailure(
  cycle: ShopCycle,
  result: ShopCycleResult,
  error: unknown,
  scrub: Scrubber,
): Promise<void> {
  const { services, shopId, now, snapshot } = cycle;
  const reason = error instanceof BadgeReadError ? error.reason : 'store';
  const message = scrubThenTruncate((error as Error).message, FAILURE_EXCERPT_CHARS, scrub);
  result.ok = false;
  result.error = `${reason}: ${message}`;
  snapshot.lastReadOk = false;
  snapshot.lastError = result.error;
  snapshot.consecutiveFailures = (snapshot.consecutiveFailures ?? 0) + 1;
  cycle.metrics.count(BADGE_READ_FAILURES_METRIC, 1, { shop: shopId, reason });
  services.log.warn('badge read failed: nothing changed', { shop: shopId, reason, error: message });
  await services.store.putRecord({
    provider: BADGE_PROVIDER,
    account: shopId,
    namespace: READ_FAILURE_NAMESPACE,
    id: 'last',
    createdAt: now,
    data: { at: now, reason, error: message, consecutiveFailures: snapshot.consecutiveFailures },
  });
}

/**
 * Validity bounds that passed since the last cycle, read or not: judged on the state after this cycle's
 * read (a bound the read moved or a badge it deleted fires nothing).
 */
async function recordDueTransitions(cycle: ShopCycle): Promise<void> {
  for (const entry of cycle.snapshot.badges.values()) {
    if (!entry.badge) continue;
    for (const transition of dueTransitions(entry.badge, entry, cycle.now)) {
      const event = await recordTransition(
        cycle.services.store,
        cycle.shopId,
        entry.badge,
        transition,
        cycle.now,
      );
      if (event) cycle.published.push(event);
      if (transition.kind === 'activated') entry.activated = transition.at;
      else entry.expired = transition.at;
    }
  }
}

async function runShop(
  services: BadgeFeedServices,
  shopId: string,
  shop: BadgeShopConfig,
  now: string,
  metrics: RelayMetrics,
  deadline: number,
  budget: AbortSignal | undefined,
): Promise<ShopCycleResult & { calls: number }> {
  const result: ShopCycleResult & { calls: number } = {
    shop: shopId,
    read: false,
    ok: true,
    events: 0,
    calls: 0,
  };
  const stored = await services.store.getRecord(snapshotRef(shopId));
  const snapshot: SnapshotData = stored ? fromStored(stored.data) : emptySnapshot();
  const transitionsDue = snapshot.nextTransitionAt !== null && snapshot.nextTransitionAt <= now;
  const readDue = snapshot.nextReadAt === undefined || snapshot.nextReadAt <= now;
  if (!transitionsDue && !readDue) return result;

  const cycle: ShopCycle = { services, shopId, now, metrics, snapshot, published: [] };
  // Credentials, however short: a stored record is not scrubbed by the logger.
  const secretValues: string[] = [];
  const scrub: Scrubber = (text) => createScrubber(secretValues, 1)(text);
  if (readDue) {
    result.read = true;
    snapshot.lastReadAt = now;
    snapshot.nextReadAt = addSeconds(now, shop.pollSeconds);
    try {
      if (!services.badgeApi) throw new BadgeReadError('network', 'no badge API client is wired');
      const api = await services.badgeApi(shop, {
        secrets: secretValues,
        count: () => result.calls++,
        budget,
      });
      await readShop(cycle, api, deadline);
    } catch (error) {
      await recordReadFailure(cycle, result, error, scrub);
    }
  }
  if (transitionsDue || result.read) await recordDueTransitions(cycle);

  snapshot.nextTransitionAt = earliestTransition(snapshot.badges, now);
  await services.store.putRecord({
    ...snapshotRef(shopId),
    createdAt: now,
    data: toStored(snapshot),
  });
  for (const event of cycle.published)
    metrics.count(BADGE_EVENTS_METRIC, 1, { shop: shopId, type: event.metadata.type });
  result.events = cycle.published.length;
  return result;
}

/**
 * One cycle of the badge feed, every shop: validity transitions due, then a read when `pollSeconds` have
 * passed since the last. When nothing is due a shop costs one record read. A shop's failure (its API,
 * its secret, the store) is recorded and never stops the other shops.
 */
export async function runBadgeCycle(
  services: BadgeFeedServices,
  options: { now?: Date; budgetMs?: number } = {},
): Promise<BadgeCycleResult & { calls: number }> {
  const now = (options.now ?? services.clock.now()).toISOString();
  // Deletion confirmations are not started after it, and every call (the secret, the badge API) is
  // abandoned when it passes, so a slow shop cannot outlast the poller's invocation.
  const budgetMs = options.budgetMs ?? Number.POSITIVE_INFINITY;
  const deadline = Date.now() + budgetMs;
  const budget = Number.isFinite(budgetMs) ? AbortSignal.timeout(Math.max(0, budgetMs)) : undefined;
  const metrics = services.metrics ?? noMetrics;
  const shops = Object.entries(services.config.badges?.shops ?? {});
  const results = await Promise.all(
    shops.map(async ([shopId, shop]) => {
      try {
        return await runShop(services, shopId, shop, now, metrics, deadline, budget);
      } catch (error) {
        services.log.error('badge cycle failed for a shop', {
          shop: shopId,
          error: (error as Error).message,
        });
        return {
          shop: shopId,
          read: false,
          ok: false,
          events: 0,
          calls: 0,
          error: `store: ${(error as Error).message}`,
        };
      }
    }),
  );
  return {
    shops: results.map(({ calls: _calls, ...rest }) => rest),
    events: results.reduce((sum, r) => sum + r.events, 0),
    calls: results.reduce((sum, r) => sum + r.calls, 0),
  };
}
