import type { CallbackConfig } from '../../config/callback-config';
import { accountKey } from '../../config/callback-config';
import type { RelayConfig } from '../../config/schema';
import { buildEvent } from '../../domain/events';
import {
  type CheckRecord,
  isFailedCheck,
  type TransactionKey,
  type TransactionRecord,
} from '../../domain/transaction';
import { findProvider } from '../../providers/registry';
import { isOwnBalanceRequest } from '../provider-records/balance-requests';
import type {
  Clock,
  DueItem,
  ProviderRecord,
  ProviderRecordStore,
  ReadOptions,
  ReceiptInput,
  RelayLogger,
  RelayMetrics,
  RelayStore,
  TransactionStore,
} from '../ports';
import {
  CALLBACKS_RESUMED_METRIC,
  SILENCE_STARTED_METRIC,
  SILENT_ACCOUNTS_METRIC,
  SILENT_HASTENED_METRIC,
  SILENT_PROVIDERS_METRIC,
} from '../../config/metric-names';

/**
 * Callback health per account (docs/reconciliation.md#callback-health). The callback side notes when an
 * account's callbacks arrive (at most one write per account every few seconds, not one per callback);
 * once per poll cycle the poller looks at each account: no callback for `callbackSilenceSeconds` while a
 * PENDING transaction older than that waits for one ⇒ `CallbackSilence` once, and the account's waiting
 * transactions are checked every `silencePollSeconds` until a callback arrives ⇒ `CallbacksResumed` once.
 * Only callbacks the provider makes on its own count: an answer to the relay's own status query (a route
 * declaring `answersRelayQuery`) would end every silence the poller's checks are answered in, and one to
 * its own balance request (a route declaring `answersBalanceRequests`, under an id the balance snapshots
 * asked with) would end a silence once per snapshot interval. Checking sooner pauses while the account's
 * latest status call failed (the status API is down or throttling).
 */

/** Provider records of one account: its last noted callback, and the poller's view (silent or not). */
export const CALLBACK_HEALTH_NAMESPACE = 'callback-health';
export const LAST_CALLBACK_ID = 'last-callback';
export const STATE_ID = 'state';
/** The provider's own record (no account): when the poller first looked at it with no callback noted. */
const PROVIDER_RECORD_ACCOUNT = '-';
const FIRST_LOOK_ID = 'provider-first-look';
/** One record per silence episode and per recovery, first writer wins: each publishes its event once. */
const SILENCE_NAMESPACE = 'callback-silence';
const RESUMED_NAMESPACE = 'callbacks-resumed';

/**
 * Seconds without a callback that make an account silent, before `timeScale`, for a provider that
 * declares none: each provider declares its own (`timings.callbackSilenceSeconds`, shared/providers/<id>/timings.ts).
 */
const DEFAULT_CALLBACK_SILENCE_SECONDS = 900;

/** At most this many waiting transactions of one account are read (and hastened) per cycle. */
const MAX_WAITING_READ_PER_ACCOUNT = 100;
/** The callback side writes an account's last callback at most this often (seconds, before scaling). */
const NOTE_EVERY_SECONDS = 60;

type Settings = RelayConfig['reconciliation'];

/** Seconds without a callback that make an account silent (scaled), 0 when turned off. */
export function callbackSilenceSeconds(settings: Settings, provider: string, account: string): number {
  const set = settings.callbackSilenceSeconds;
  const seconds =
    set[`${provider}/${account}`] ??
    set[provider] ??
    findProvider(provider)?.timings.callbackSilenceSeconds ??
    DEFAULT_CALLBACK_SILENCE_SECONDS;
  return seconds * settings.timeScale;
}

/**
 * How often one process writes an account's last callback: well inside the silence time. An account whose
 * own silence is off is still noted (once a minute): its provider's silence ticket reads the record.
 */
function noteIntervalSeconds(settings: Settings, provider: string, account: string): number {
  const silence = callbackSilenceSeconds(settings, provider, account);
  const every = NOTE_EVERY_SECONDS * settings.timeScale;
  return silence > 0 ? Math.min(every, silence / 4) : every;
}

const ref = (provider: string, account: string, namespace: string, id: string) => ({
  provider,
  account,
  namespace,
  id,
});

/**
 * The callback side: notes that a callback of an account was stored. One process writes an account's
 * `last-callback` record at most once per `noteIntervalSeconds` (≤ 60 s): the first callback after a
 * quiet spell is written at once (its time is when the silence ended), the rest of a busy minute costs
 * nothing. A failed write is logged and never fails the callback.
 */
export class CallbackTracker {
  private readonly noted = new Map<string, number>();

  constructor(
    private readonly store: ProviderRecordStore,
    private readonly config: Pick<CallbackConfig, 'reconciliation'>,
    private readonly log: RelayLogger,
  ) {}

  /** Writes stored by this process since it started (for measurements). */
  writes = 0;

  /**
   * Notes a stored receipt as the account's callback, unless it answers a query the relay made. Whether
   * a balance answer is the relay's own is read (one record) only when the receipt would be written.
   */
  async noteReceipt(
    input: Pick<ReceiptInput, 'key' | 'routeName' | 'receivedAt'>,
    options: ReadOptions = {},
  ): Promise<void> {
    const { provider, account } = input.key;
    const route = findProvider(provider)?.routes.find((r) => r.name === input.routeName);
    if (route?.answersRelayQuery === true || !this.due(provider, account, input.receivedAt)) return;
    if (route?.answersBalanceRequests === true && (await this.ownBalanceAnswer(input.key, options))) return;
    await this.noteCallback(provider, account, input.receivedAt, options);
  }

  /**
   * The id the answer names (its receipt's reference) is one the balance snapshots asked with. A failed
   * read counts the answer, as before the relay told them apart: a callback is never failed for it.
   */
  private async ownBalanceAnswer(key: TransactionKey, options: ReadOptions): Promise<boolean> {
    try {
      return await isOwnBalanceRequest(
        this.store,
        { provider: key.provider, account: key.account, requestId: key.reference },
        { ...options, consistent: true },
      );
    } catch (error) {
      this.log.warn('could not tell whose balance request a balance answer is for', {
        provider: key.provider,
        account: key.account,
        error: (error as Error).message,
      });
      return false;
    }
  }

  /** Whether a callback of the account received at `receivedAt` is written (not one of a busy minute). */
  private due(provider: string, account: string, receivedAt: string): boolean {
    const last = this.noted.get(`${provider}/${account}`);
    const every = noteIntervalSeconds(this.config.reconciliation, provider, account) * 1000;
    return last === undefined || Date.parse(receivedAt) - last >= every;
  }

  /** `options.signal`: the ack budget's, so a stalled write is abandoned when the budget cuts the callback. */
  private async noteCallback(
    provider: string,
    account: string,
    receivedAt: string,
    options: ReadOptions,
  ): Promise<void> {
    const at = Date.parse(receivedAt);
    const key = `${provider}/${account}`;
    // Again: another receipt of the account may have been noted while a balance answer's owner was read.
    if (!this.due(provider, account, receivedAt)) return;
    this.noted.set(key, at);
    try {
      this.writes++;
      await this.store.putRecord(
        {
          ...ref(provider, account, CALLBACK_HEALTH_NAMESPACE, LAST_CALLBACK_ID),
          data: { lastCallbackAt: receivedAt },
          createdAt: receivedAt,
        },
        options.signal ? { signal: options.signal } : {},
      );
    } catch (error) {
      this.noted.delete(key);
      this.log.warn('could not note the callback for callback health', {
        provider,
        account,
        error: (error as Error).message,
      });
    }
  }
}

/**
 * The store every callback is received through, noting each stored receipt (every callback, direct or
 * buffered, stores one) with the tracker, except the answers to the relay's own queries (status queries,
 * balance snapshots): they come because the poller asked, so they say nothing of whether the provider's
 * own callbacks reach the relay. Wired by the composition roots; the other calls are the store's.
 */
export function trackingCallbacks<S extends TransactionStore>(store: S, tracker: CallbackTracker): S {
  const tracked = Object.create(store) as S;
  tracked.recordReceipt = async (input, options) => {
    const result = await store.recordReceipt(input, options);
    // A repeated delivery counts too: the provider is calling back.
    await tracker.noteReceipt(input, options?.signal ? { signal: options.signal } : {});
    return result;
  };
  return tracked;
}

interface Episode {
  id: string;
  silentSince: string;
  lastCallbackAt: string | null;
  detectedAt: string;
}

export interface CallbackHealthServices {
  config: RelayConfig;
  store: RelayStore;
  clock: Clock;
  log: RelayLogger;
  metrics: RelayMetrics;
}

export interface CallbackHealthOptions {
  /**
   * The provider silence tickets' periods in seconds (shared/config/silence-alarms.ts): a provider none of
   * whose accounts called back for that long is written in `SilentProviders{provider}` each cycle.
   * Absent: no provider ticket to feed (npm start, or monitoring off).
   */
  readonly providerSilenceSeconds?: Readonly<Record<string, number>>;
}

export interface CallbackHealthResult {
  /** Accounts silent after this cycle (`provider/account`). */
  silent: string[];
  /** Providers none of whose accounts called back for their silence ticket's period. */
  silentProviders: string[];
  started: string[];
  resumed: string[];
  /** Waiting transactions whose next check this cycle brought forward. */
  hastened: number;
  /** Silent accounts not hastened this cycle: their latest status call failed (`provider/account`). */
  held: string[];
  /** Items read: health records, due-index entries and transactions. */
  readItems: number;
  /**
   * The due index as this cycle read it (every entry, due or not, at most `limit`, oldest first), with
   * the new dueAt of each check it brought forward; absent when no account could be silent (not read).
   */
  dueIndex?: { items: DueItem[]; limit: number };
}

const FAR_FUTURE = '9999-12-31T23:59:59.999Z';
const correlationOf = (provider: string, account: string) => `${provider}:${account}:callbacks`;
const secondsBetween = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / 1000);

/** A transaction waiting for its callback: registered, still PENDING, older than the silence time, none came. */
function isWaiting(tx: TransactionRecord, olderThan: string): boolean {
  return (
    tx.registered &&
    tx.status === 'PENDING' &&
    tx.createdAt <= olderThan &&
    !tx.transitions.some((t) => t.origin === 'callback' || t.origin === 'buffer')
  );
}

const refId = (r: { provider: string; account: string; namespace: string; id: string }) =>
  `${r.provider}/${r.account}/${r.namespace}/${r.id}`;

/**
 * Each watched account (silence time > 0) with its last callback and its open silence episode, and the
 * last callback of every account a provider silence ticket looks at: one batch read (BatchGetItem, 100
 * records a request) instead of a read per record, as eventually consistent as each read was.
 */
async function readAccounts(
  services: CallbackHealthServices,
  options: CallbackHealthOptions,
  now: string,
  result: CallbackHealthResult,
) {
  const { store, config } = services;
  const settings = config.reconciliation;
  const ticketed = new Set(Object.keys(options.providerSilenceSeconds ?? {}));
  const all = [...config.accounts.values()].map((a) => ({
    provider: a.provider,
    account: a.id,
    silence: callbackSilenceSeconds(settings, a.provider, a.id),
  }));
  const watched = all.filter((a) => a.silence > 0);
  const lastNeeded = all.filter((a) => a.silence > 0 || ticketed.has(a.provider));
  const firstLookRef = (provider: string) =>
    ref(provider, PROVIDER_RECORD_ACCOUNT, CALLBACK_HEALTH_NAMESPACE, FIRST_LOOK_ID);
  const refs = [
    ...lastNeeded.map((a) => ref(a.provider, a.account, CALLBACK_HEALTH_NAMESPACE, LAST_CALLBACK_ID)),
    ...watched.map((a) => ref(a.provider, a.account, CALLBACK_HEALTH_NAMESPACE, STATE_ID)),
    ...[...ticketed].map(firstLookRef),
  ];
  const records = new Map(
    (refs.length > 0 ? await store.getRecords(refs) : []).map((record) => [refId(record), record]),
  );
  result.readItems += refs.length;
  const lastOf = (provider: string, account: string) =>
    (records.get(refId(ref(provider, account, CALLBACK_HEALTH_NAMESPACE, LAST_CALLBACK_ID)))?.data
      .lastCallbackAt as string | undefined) ?? null;
  const lastCallbacks = new Map(
    lastNeeded.map((a) => [accountKey(a.provider, a.account), lastOf(a.provider, a.account)]),
  );
  const accounts = watched.map((a) => {
    const state = records.get(refId(ref(a.provider, a.account, CALLBACK_HEALTH_NAMESPACE, STATE_ID)));
    const episode = (state?.data.episode as Episode | null | undefined) ?? null;
    const quietSince = new Date(Date.parse(now) - a.silence * 1000).toISOString();
    return { ...a, lastCallbackAt: lastOf(a.provider, a.account), episode, quietSince };
  });
  const firstLooks = new Map(
    [...ticketed].flatMap((provider) => {
      const at = records.get(refId(firstLookRef(provider)))?.data.firstLookAt as string | undefined;
      return at === undefined ? [] : [[provider, at] as const];
    }),
  );
  return { accounts, lastCallbacks, firstLooks };
}

type WatchedAccount = Awaited<ReturnType<typeof readAccounts>>['accounts'][number];

/** Callbacks came back: one CallbacksResumed per episode, and the episode closed. */
async function resumeEpisodes(
  services: CallbackHealthServices,
  accounts: WatchedAccount[],
  now: string,
  result: CallbackHealthResult,
): Promise<void> {
  const { store, log, metrics } = services;
  for (const a of accounts) {
    if (!a.episode || a.lastCallbackAt === null || a.lastCallbackAt <= (a.episode.lastCallbackAt ?? ''))
      continue;
    const data = {
      provider: a.provider,
      account: a.account,
      silentFrom: a.episode.silentSince,
      silentTo: a.lastCallbackAt,
      durationSeconds: Math.max(0, secondsBetween(a.episode.silentSince, a.lastCallbackAt)),
      detectedAt: now,
    };
    const stood = await store.putRecordIfAbsent({
      ...ref(a.provider, a.account, RESUMED_NAMESPACE, a.episode.id),
      data,
      createdAt: now,
      outbox: [
        buildEvent('CallbacksResumed', correlationOf(a.provider, a.account), a.episode.id, 'poll', now, data),
      ],
    });
    await putState(store, a.provider, a.account, null, now);
    if (stood.written) {
      metrics.count(CALLBACKS_RESUMED_METRIC, 1, { provider: a.provider, account: a.account });
      log.info('callbacks resumed', data);
      result.resumed.push(`${a.provider}/${a.account}`);
    }
    a.episode = null;
  }
}

/**
 * One look at every configured account's callbacks, run by the poller before each poll cycle. Reads two
 * small records per account (in one batch); the due index (keys) and the account's in-flight transactions
 * (in one batch) only when an account has had no callback for its silence time. The due index as it then
 * read it, with the checks it brought forward, is in the result (`dueIndex`): the poll cycle after it
 * takes its due items from there instead of reading the index again.
 */
export async function runCallbackHealthCycle(
  services: CallbackHealthServices,
  options: CallbackHealthOptions = {},
): Promise<CallbackHealthResult> {
  const { clock, metrics } = services;
  const now = clock.now().toISOString();
  const result: CallbackHealthResult = {
    silent: [],
    silentProviders: [],
    started: [],
    resumed: [],
    hastened: 0,
    held: [],
    readItems: 0,
  };

  const { accounts, ...read } = await readAccounts(services, options, now, result);
  await resumeEpisodes(services, accounts, now, result);

  // Silent or possibly silent: no callback for the silence time (or never).
  const candidates = accounts.filter(
    (a) => a.episode !== null || a.lastCallbackAt === null || a.lastCallbackAt <= a.quietSince,
  );
  if (candidates.length > 0) await lookAtCandidates(services, candidates, now, result);
  // Only while an account is silent: a series written every cycle would bill all month for zeros; the
  // ticket alarm reads no data as OK (treatMissingData notBreaching), so it clears when this stops.
  if (result.silent.length > 0) metrics.count(SILENT_ACCOUNTS_METRIC, result.silent.length);
  result.silentProviders = await silentProviders(services, options, read, now, result);
  // The same for the provider tickets: written only while the provider is silent, per provider.
  for (const provider of result.silentProviders) metrics.count(SILENT_PROVIDERS_METRIC, 1, { provider });
  // How many checks silence brought forward this cycle: what "polls sooner" does, countable.
  if (result.hastened > 0) metrics.count(SILENT_HASTENED_METRIC, result.hastened);
  return result;
}

/**
 * The accounts that may be silent: their waiting transactions (read from the due index's keys, all in
 * one batch), a silence episode started when one waits, and the checks of a silent account's waiting
 * transactions brought forward (unless its latest status call failed).
 */
async function lookAtCandidates(
  services: CallbackHealthServices,
  candidates: WatchedAccount[],
  now: string,
  result: CallbackHealthResult,
): Promise<void> {
  const { store, config } = services;
  const settings = config.reconciliation;
  const listed = await store.listDue(FAR_FUTURE, settings.maxItemsPerCycle);
  result.readItems += listed.readItems;
  const keysOf = new Map(
    candidates.map((a) => [
      accountKey(a.provider, a.account),
      listed.items
        .filter((i) => i.key.provider === a.provider && i.key.account === a.account)
        .slice(0, MAX_WAITING_READ_PER_ACCOUNT)
        .map((i) => i.key),
    ]),
  );
  const transactions = await readAll(store, [...keysOf.values()].flat());
  const moved = new Map<string, string>();
  for (const a of candidates) {
    const keys = keysOf.get(accountKey(a.provider, a.account)) ?? [];
    result.readItems += keys.length;
    const waiting = keys
      .flatMap((key) => transactions.get(txId(key)) ?? [])
      .filter((tx) => isWaiting(tx, a.quietSince));
    if (!a.episode && waiting.length > 0) a.episode = await startEpisode(services, a, waiting, now, result);
    if (!a.episode) continue;
    result.silent.push(accountKey(a.provider, a.account));
    // Asking sooner a status API that just failed (5xx, timeout, throttled) only adds load to a struggling
    // API: each transaction keeps its own schedule (its backoff, any Retry-After) until a call succeeds.
    if (latestCheckFailed(waiting)) {
      result.held.push(accountKey(a.provider, a.account));
      continue;
    }
    result.hastened += await hasten(
      store,
      waiting,
      now,
      settings.silencePollSeconds * settings.timeScale,
      moved,
    );
  }
  result.dueIndex = {
    limit: settings.maxItemsPerCycle,
    items: listed.items.map((i) => {
      const dueAt = moved.get(txId(i.key));
      return dueAt === undefined ? i : { key: i.key, dueAt };
    }),
  };
}

/**
 * Providers with a silence ticket (`providerSilenceSeconds`) none of whose accounts has called back for the
 * ticket's period: their newest last-callback record, over every configured account of the provider (an
 * account left out of the ticket still calls back for its provider, as its callbacks counted before), is
 * older than that, or there is none (nobody has called back since the deployment). Reads the records of
 * the batch readAccounts made (every account of a ticketed provider is in it, and its first look): the
 * first look is written only when that read did not find it, not tried again every cycle.
 */
async function silentProviders(
  services: CallbackHealthServices,
  options: CallbackHealthOptions,
  {
    lastCallbacks,
    firstLooks,
  }: { lastCallbacks: ReadonlyMap<string, string | null>; firstLooks: ReadonlyMap<string, string> },
  now: string,
  result: CallbackHealthResult,
): Promise<string[]> {
  const periods = options.providerSilenceSeconds ?? {};
  const silent: string[] = [];
  for (const [provider, seconds] of Object.entries(periods)) {
    const lasts = [...services.config.accounts.values()]
      .filter((a) => a.provider === provider)
      .map((a) => lastCallbacks.get(accountKey(provider, a.id)) ?? null);
    const newest = lasts.reduce<string | null>(
      (max, at) => (at !== null && (max === null || at > max) ? at : max),
      null,
    );
    // No callback noted yet: counted from when the poller first looked (a record written once), so a
    // new deployment is ticketed after the period, not at its first cycle.
    const since = newest ?? firstLooks.get(provider) ?? (await firstLook(services, provider, now, result));
    if (Date.parse(now) - Date.parse(since) >= seconds * 1000) silent.push(provider);
  }
  return silent;
}

/** When the poller first looked at a provider none of whose accounts has called back (first writer wins). */
async function firstLook(
  services: CallbackHealthServices,
  provider: string,
  now: string,
  result: CallbackHealthResult,
): Promise<string> {
  const stood = await services.store.putRecordIfAbsent({
    ...ref(provider, PROVIDER_RECORD_ACCOUNT, CALLBACK_HEALTH_NAMESPACE, FIRST_LOOK_ID),
    data: { firstLookAt: now },
    createdAt: now,
  });
  result.readItems += 1;
  return (stood.record.data.firstLookAt as string | undefined) ?? now;
}

/** Whether the account's latest status call (the newest check among its waiting transactions) failed. */
function latestCheckFailed(waiting: TransactionRecord[]): boolean {
  let latest: CheckRecord | undefined;
  for (const tx of waiting) {
    const check = tx.reconcile?.recent.at(-1);
    if (check && (!latest || check.at > latest.at)) latest = check;
  }
  return latest !== undefined && isFailedCheck(latest);
}

const txId = (key: TransactionKey) => `${key.provider}/${key.account}/${key.reference}`;

/** The transactions of these keys that exist, by txId: one batch read (as eventually consistent as one by one). */
async function readAll(store: RelayStore, keys: TransactionKey[]): Promise<Map<string, TransactionRecord>> {
  const read = keys.length > 0 ? await store.getTransactions(keys) : [];
  return new Map(read.map((tx) => [txId(tx.key), tx]));
}

async function putState(
  store: ProviderRecordStore,
  provider: string,
  account: string,
  episode: Episode | null,
  now: string,
): Promise<void> {
  const record: ProviderRecord = {
    ...ref(provider, account, CALLBACK_HEALTH_NAMESPACE, STATE_ID),
    data: { episode },
    createdAt: now,
  };
  await store.putRecord(record);
}

async function startEpisode(
  services: CallbackHealthServices,
  a: { provider: string; account: string; silence: number; lastCallbackAt: string | null },
  waiting: TransactionRecord[],
  now: string,
  result: CallbackHealthResult,
): Promise<Episode> {
  const oldest = waiting.map((tx) => tx.createdAt).sort()[0]!;
  // Deterministic: every poller that sees this silence names it by the last callback before it.
  const episode: Episode = {
    id: `after:${a.lastCallbackAt ?? 'never'}`,
    silentSince: a.lastCallbackAt !== null && a.lastCallbackAt > oldest ? a.lastCallbackAt : oldest,
    lastCallbackAt: a.lastCallbackAt,
    detectedAt: now,
  };
  const data = {
    provider: a.provider,
    account: a.account,
    silentSince: episode.silentSince,
    lastCallbackAt: a.lastCallbackAt,
    waitingTransactions: waiting.length,
    silenceSeconds: a.silence,
    pollEverySeconds:
      services.config.reconciliation.silencePollSeconds * services.config.reconciliation.timeScale,
    detectedAt: now,
  };
  const stood = await services.store.putRecordIfAbsent({
    ...ref(a.provider, a.account, SILENCE_NAMESPACE, episode.id),
    data: { ...data, episode },
    createdAt: now,
    outbox: [
      buildEvent('CallbackSilence', correlationOf(a.provider, a.account), episode.id, 'poll', now, data),
    ],
  });
  const standing = (stood.record.data.episode as Episode | undefined) ?? episode;
  await putState(services.store, a.provider, a.account, standing, now);
  if (stood.written) {
    services.metrics.count(SILENCE_STARTED_METRIC, 1, { provider: a.provider, account: a.account });
    services.log.warn('callbacks silent: polling the waiting transactions sooner', data);
    result.started.push(`${a.provider}/${a.account}`);
  }
  return standing;
}

/**
 * Brings each waiting transaction's next check forward to `pollEvery` after its last look (never later
 * than it already is, never past a held lease): the poll cycle then checks it, through the same lease.
 * Each one moved is noted in `moved` (txId → its new dueAt).
 */
async function hasten(
  store: TransactionStore,
  waiting: TransactionRecord[],
  now: string,
  pollEverySeconds: number,
  moved: Map<string, string>,
): Promise<number> {
  let count = 0;
  for (const tx of waiting) {
    const state = tx.reconcile;
    if (!state?.dueAt || state.leaseOwner) continue;
    const lastLook = state.recent.at(-1)?.at ?? tx.createdAt;
    const soon = new Date(
      Math.max(Date.parse(now), Date.parse(lastLook) + pollEverySeconds * 1000),
    ).toISOString();
    if (state.dueAt <= soon) continue;
    const next: TransactionRecord = {
      ...tx,
      reconcile: { ...state, dueAt: soon },
      revision: tx.revision + 1,
      outbox: [],
    };
    // A write that lost the race (a callback, a claim) is left alone; the next cycle looks again.
    if (await store.replaceTransaction(next, tx.revision)) {
      moved.set(txId(tx.key), soon);
      count++;
    }
  }
  return count;
}
