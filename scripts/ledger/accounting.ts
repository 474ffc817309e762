/**
 * The ledger's accounting, pure: given the transactions a run registered (with what each should end as)
 * and the events the relay published, does every transaction have exactly one final event, the
 * expected one, and nothing lost? Also the counts a person wants: by status and by the origin that
 * settled it, time to final, status calls per transaction.
 */
import type { EventEnvelope } from '../../shared/domain/events';
import type { FinalStatus } from './plan';

export const FINAL_TYPES: Readonly<Record<string, FinalStatus>> = {
  TransactionSucceeded: 'SUCCEEDED',
  TransactionFailed: 'FAILED',
  TransactionExpired: 'EXPIRED',
};

/** One registered transaction, as the run knows it. */
export interface LedgerEntry {
  /** `provider/account/reference`. */
  key: string;
  /** For people: "#12 momo pay, payer +1 Rejected, faults drop". */
  label: string;
  expected: FinalStatus;
  /**
   * The final event must come from a status check (origin `poll`): its callback was dropped, or it is a
   * MoMo success (unsigned, confirmed by the status API before it is published).
   */
  viaPoll: boolean;
  /** When the partner started it (ms since epoch). */
  startedAt: number;
  /** The end of its reconciliation window (ms since epoch), from the relay. */
  windowEndsAt: number;
  /** From `GET /v1/transactions/…` at the end of the run, when read. */
  relay?: { status: string; statusChecks: number };
}

export interface TransactionLedgerLine {
  key: string;
  label: string;
  expected: FinalStatus;
  /** The first final event's status; undefined: none. */
  final?: FinalStatus;
  origin?: string;
  timeToFinalMs?: number;
  /** A TransactionSucceeded/Failed flagged `lateResolution` after TransactionExpired. */
  lateResolution?: FinalStatus;
}

export interface Ledger {
  registered: number;
  succeeded: number;
  failed: number;
  expired: number;
  /** No final event yet, window not over (+ margin). */
  open: string[];
  /** No final event and the window is over (+ margin). */
  lost: string[];
  /** More than one final event (after deduplication by metadata.id; late resolutions excepted). */
  duplicates: string[];
  /** The final event is not the expected one. */
  wrongOutcome: string[];
  /** A dropped callback or an unconfirmed MoMo success finalized by a callback. */
  wrongOrigin: string[];
  /** The relay's status (GET) disagrees with the events. */
  relayDisagrees: string[];
  lateResolutions: number;
  /** Event lines seen twice with the same metadata.id (at-least-once delivery; deduplicated). */
  repeatedLines: number;
  byOrigin: Record<string, number>;
  /** Registration to the final event (expired ones excluded: their time is the window), ms. */
  timeToFinal: { p50: number; p95: number; max: number; count: number } | undefined;
  /** From the relay's `reconciliation.statusChecks`, over the transactions read. */
  statusCalls: { total: number; perTransaction: number; max: number; read: number } | undefined;
  lines: TransactionLedgerLine[];
  /** Every transaction that breaks the ledger, with why. */
  problems: string[];
  balanced: boolean;
}

export interface AccountingOptions {
  /** How long after a window's end a missing TransactionExpired still counts as "coming" (ms). */
  marginMs: number;
  /** The run is over: a transaction still open is a problem (it did not end in time), named. */
  runEnded?: boolean;
}

function keyOf(event: EventEnvelope): string | undefined {
  const d = event.data as { provider?: unknown; account?: unknown; reference?: unknown };
  if (typeof d.provider !== 'string' || typeof d.account !== 'string' || typeof d.reference !== 'string')
    return undefined;
  return `${d.provider}/${d.account}/${d.reference}`;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function account(
  entries: readonly LedgerEntry[],
  events: readonly EventEnvelope[],
  now: number,
  options: AccountingOptions,
): Ledger {
  // Deduplicate by metadata.id first: the same fact delivered twice is one event.
  const seen = new Set<string>();
  let repeatedLines = 0;
  const finalsOf = new Map<string, EventEnvelope[]>();
  for (const event of events) {
    if (seen.has(event.metadata.id)) {
      repeatedLines++;
      continue;
    }
    seen.add(event.metadata.id);
    if (!(event.metadata.type in FINAL_TYPES)) continue;
    const key = keyOf(event);
    if (!key) continue;
    const list = finalsOf.get(key) ?? [];
    list.push(event);
    finalsOf.set(key, list);
  }

  const ledger: Ledger = {
    registered: entries.length,
    succeeded: 0,
    failed: 0,
    expired: 0,
    open: [],
    lost: [],
    duplicates: [],
    wrongOutcome: [],
    wrongOrigin: [],
    relayDisagrees: [],
    lateResolutions: 0,
    repeatedLines,
    byOrigin: {},
    timeToFinal: undefined,
    statusCalls: undefined,
    lines: [],
    problems: [],
    balanced: false,
  };
  const times: number[] = [];
  const checks: number[] = [];

  for (const entry of entries) {
    const finals = finalsOf.get(entry.key) ?? [];
    const line: TransactionLedgerLine = { key: entry.key, label: entry.label, expected: entry.expected };
    ledger.lines.push(line);
    const name = `${entry.key} (${entry.label})`;
    if (entry.relay) checks.push(entry.relay.statusChecks);

    const first = finals[0];
    if (!first) {
      if (now > entry.windowEndsAt + options.marginMs) {
        ledger.lost.push(entry.key);
        const relay = entry.relay ? `; the relay says ${entry.relay.status}` : '';
        ledger.problems.push(
          `lost: ${name}: no final event, its window ended ${new Date(entry.windowEndsAt).toISOString()}${relay}`,
        );
      } else {
        ledger.open.push(entry.key);
        if (options.runEnded)
          ledger.problems.push(
            `still open: ${name}: no final event when the run ended (expected ${entry.expected}; window until ${new Date(entry.windowEndsAt).toISOString()})`,
          );
      }
      continue;
    }

    const status = FINAL_TYPES[first.metadata.type]!;
    line.final = status;
    line.origin = first.metadata.origin;
    if (status === 'SUCCEEDED') ledger.succeeded++;
    else if (status === 'FAILED') ledger.failed++;
    else ledger.expired++;
    ledger.byOrigin[first.metadata.origin] = (ledger.byOrigin[first.metadata.origin] ?? 0) + 1;
    if (status !== 'EXPIRED') {
      line.timeToFinalMs = Math.max(0, Date.parse(first.metadata.occurredAt) - entry.startedAt);
      times.push(line.timeToFinalMs);
    }

    // After EXPIRED, one Succeeded/Failed flagged lateResolution is the provider's late answer, not a duplicate.
    let extra = finals.slice(1);
    const late = extra.find(
      (e) =>
        status === 'EXPIRED' &&
        e.metadata.type !== 'TransactionExpired' &&
        (e.data as { lateResolution?: unknown }).lateResolution === true,
    );
    if (late) {
      line.lateResolution = FINAL_TYPES[late.metadata.type];
      ledger.lateResolutions++;
      extra = extra.filter((e) => e !== late);
    }
    if (extra.length) {
      ledger.duplicates.push(entry.key);
      const all = finals.map((e) => `${e.metadata.type} (${e.metadata.origin}, id ${e.metadata.id})`);
      ledger.problems.push(`duplicate: ${name}: ${finals.length} final events: ${all.join(', ')}`);
    }
    if (status !== entry.expected) {
      ledger.wrongOutcome.push(entry.key);
      ledger.problems.push(
        `wrong outcome: ${name}: expected ${entry.expected}, got ${first.metadata.type} (${first.metadata.origin})`,
      );
    }
    if (entry.viaPoll && first.metadata.origin === 'callback') {
      ledger.wrongOrigin.push(entry.key);
      ledger.problems.push(
        `wrong origin: ${name}: expected from a status check (origin poll), got ${first.metadata.type} from a callback`,
      );
    }
    const settled = line.lateResolution ?? status;
    if (entry.relay && entry.relay.status !== settled) {
      ledger.relayDisagrees.push(entry.key);
      ledger.problems.push(
        `relay disagrees: ${name}: the events say ${settled}, GET says ${entry.relay.status}`,
      );
    }
  }

  if (times.length) {
    const sorted = [...times].sort((a, b) => a - b);
    ledger.timeToFinal = {
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
      max: sorted[sorted.length - 1]!,
      count: sorted.length,
    };
  }
  if (checks.length) {
    const total = checks.reduce((a, b) => a + b, 0);
    ledger.statusCalls = {
      total,
      perTransaction: total / checks.length,
      max: Math.max(...checks),
      read: checks.length,
    };
  }
  const sum = ledger.succeeded + ledger.failed + ledger.expired + ledger.open.length + ledger.lost.length;
  if (sum !== ledger.registered)
    ledger.problems.push(`the counts do not add up: ${sum} accounted for, ${ledger.registered} registered`);
  ledger.balanced = ledger.problems.length === 0 && ledger.open.length === 0;
  return ledger;
}
