import type { ApplyOutcome } from '../../domain/apply-report';
import type {
  BalanceSnapshot,
  StatementBreak,
  StatementIngestOptions,
  StatementIngestResult,
  StatementRow,
  StatementSink,
  StoredBalance,
  StoredStatementRow,
  RowEffect,
} from '../../domain/statement';
import { sameCurrency, unconfirmedBalance } from '../../domain/statement';
import { rowFingerprint } from '../../domain/statement-layouts';
import {
  type StatementSettings,
  businessDayOf,
  bringsMoneyIn,
  compareAmounts,
  dayTimeOf,
  defaultStatementSettings,
  MOVED_AT_ATTRIBUTE,
  newBreak,
  PAIRING_LOOKAHEAD_SECONDS,
  PAIRING_LOOKBACK_SECONDS,
  pairingCandidate,
  RECEIPT_ALIAS,
  rowAmount,
  rowClaim,
} from '../../domain/statement-match';
import type { NormalizedReport, TransactionRecord } from '../../domain/transaction';
import type { RelayConfig } from '../../config/schema';
import { accountKey } from '../../config/schema';
import { statementsOf } from '../../providers/registry';
import { decimalSum } from '../../util/money';
import { nextDay, previousDay } from '../../util/time-zone';
import type { AccountDayReader, Clock, RelayLogger, RelayStore } from '../ports';
import { decideReport, decisionContext } from '../transactions/decide-report';
import { ALIAS_NAMESPACE_PREFIX, ingestReport } from '../transactions/ingest-report';
import { amountAtStake, limitExceeded } from '../operations/four-eyes';
import type { StatementStore } from './statement-store';
import { TransactionFinder } from './transaction-finder';

/** Rows taken at a time: their stored rows and transactions read together, their new rows written together. */
export const INGEST_BATCH = 200;

/** A row's key within its day (its store key: provider, account, day, providerId, kind). */
const rowId = (row: Pick<StatementRow, 'provider' | 'account' | 'providerId' | 'kind'>, day: string) =>
  `${row.provider}#${row.account}#${day}#${row.providerId}#${row.kind}`;

/** Where a row ended up, and the transaction it names. */
type Placed = { effect: RowEffect; reference?: string };

/** A payment row being placed: its settings, and where its breaks and counts go. */
interface PaymentPlacing {
  row: StatementRow;
  settings: StatementSettings;
  options: StatementIngestOptions;
  result: StatementIngestResult;
  finder: TransactionFinder;
  /** What every break of the row shares. */
  base: Pick<StatementBreak, 'provider' | 'account' | 'day' | 'detectedAt' | 'origin'>;
  claim: 'SUCCEEDED' | 'FAILED';
  amount: string;
}

export interface StatementDeps {
  config: RelayConfig;
  store: RelayStore;
  /** Where a close reads its account-days when not from `store` (the scheduled close's run reader). */
  accountDays?: AccountDayReader;
  statements: StatementStore;
  clock: Clock;
  log: RelayLogger;
}

/** An account's matching settings: its config over the provider's defaults. */
export function statementSettings(config: RelayConfig, provider: string, account: string): StatementSettings {
  const set = config.statements.accounts[accountKey(provider, account)] ?? {};
  const defaults = defaultStatementSettings(statementsOf(provider));
  return {
    timeZone: set.timeZone ?? defaults.timeZone,
    cutoff: set.cutoff ?? defaults.cutoff,
    amountTolerance: set.amountTolerance ?? defaults.amountTolerance,
    timeToleranceSeconds: set.timeToleranceSeconds ?? defaults.timeToleranceSeconds,
    slaSeconds: set.slaSeconds ?? defaults.slaSeconds,
    expectedSources: set.expectedSources ?? defaults.expectedSources,
    opensKind: defaults.opensKind,
    pairsKinds: defaults.pairsKinds,
  };
}

const emptyResult = (): StatementIngestResult => ({
  rows: 0,
  alreadyKnown: 0,
  matched: 0,
  opened: 0,
  settled: 0,
  conflicts: 0,
  breaks: 0,
  feesLinked: 0,
  heldAboveLimit: 0,
});

/**
 * The one entrance for the provider's own records (domain/statement.ts StatementSink): each row is
 * stored once (same key and content: nothing changes), matched to its transaction by the provider's keys,
 * and weighed as evidence through the one decision every report goes through (decideReport); what does not
 * add up is a break, stored, never a rewrite. `dryRun` reads and decides but writes nothing.
 */
export class StatementLedger implements StatementSink {
  constructor(private readonly deps: StatementDeps) {}

  async ingestRows(
    rows: readonly StatementRow[],
    options: StatementIngestOptions,
  ): Promise<StatementIngestResult> {
    const result = emptyResult();
    for (let at = 0; at < rows.length; at += INGEST_BATCH)
      await this.ingestBatch(rows.slice(at, at + INGEST_BATCH), options, result);
    return result;
  }

  /**
   * One batch of rows (at most INGEST_BATCH): the rows already stored read at once (a key-range query
   * per business day), the transactions the new rows name read at once (TransactionFinder), then each
   * row placed in the file's order (a row may name the transaction an earlier one opened or settled),
   * and the new rows written together, each conditional. `stop` is asked before each row (with the
   * rows taken so far): when it says so, the rows placed so far are written and the count of rows taken
   * is answered (the rest is the caller's to send again: docs/statements.md#files).
   */
  async ingestBatch(
    rows: readonly StatementRow[],
    options: StatementIngestOptions,
    result: StatementIngestResult,
    stop: (taken: number) => boolean = () => false,
  ): Promise<number> {
    const { statements } = this.deps;
    const keyed = rows.map((row) => {
      const settings = statementSettings(this.deps.config, row.provider, row.account);
      const day = businessDayOf(row.time, settings);
      return { row, settings, day, fingerprint: rowFingerprint(row), id: rowId(row, day) };
    });
    const stored = new Map<string, StoredStatementRow>();
    const days = new Map<string, typeof keyed>();
    for (const k of keyed) {
      const dayId = `${k.row.provider}#${k.row.account}#${k.day}`;
      days.set(dayId, [...(days.get(dayId) ?? []), k]);
    }
    for (const ofDay of days.values()) {
      const { row, day } = ofDay[0]!;
      const at = { provider: row.provider, account: row.account, day };
      for (const known of await statements.getRows(
        at,
        ofDay.map((k) => k.row),
      ))
        stored.set(rowId(known, known.day), known);
    }
    const finder = new TransactionFinder(this.deps.store);
    await finder.prefetch(
      keyed
        .filter((k) => !stored.has(k.id))
        .flatMap(({ row }) => {
          const id =
            row.kind === 'fee'
              ? (row.linkedProviderId ?? row.providerId)
              : row.kind === 'reversal'
                ? row.linkedProviderId
                : row.kind === 'payment'
                  ? row.providerId
                  : undefined;
          return id ? [{ owner: row, id }] : [];
        }),
    );
    const fresh: StoredStatementRow[] = [];
    let taken = 0;
    for (const { row, settings, day, fingerprint, id } of keyed) {
      if (stop(taken)) break;
      taken++;
      result.rows++;
      const known = stored.get(id);
      if (known) {
        await this.knownAgain(row, day, known, fingerprint, options, result);
        continue;
      }
      const placed = await this.place(row, day, settings, options, result, finder);
      const storedRow: StoredStatementRow = {
        ...row,
        day,
        fingerprint,
        effect: placed.effect,
        ...(placed.reference ? { reference: placed.reference } : {}),
        importedAt: this.now(),
        actor: options.actor,
      };
      // A row twice in one batch is known the second time, as it would be in the next batch.
      stored.set(id, storedRow);
      if (!options.dryRun) fresh.push(storedRow);
    }
    if (fresh.length) await statements.putRows(fresh);
    return taken;
  }

  /** A row whose key is stored: the same content changes nothing; other content is a row-changed break. */
  private async knownAgain(
    row: StatementRow,
    day: string,
    known: StoredStatementRow,
    fingerprint: string,
    options: StatementIngestOptions,
    result: StatementIngestResult,
  ): Promise<void> {
    if (known.fingerprint === fingerprint) {
      result.alreadyKnown++;
      return;
    }
    // The first version stands; the other one is shown to a person, never written over it.
    await this.recordBreak(
      newBreak({
        subject: `${row.providerId}#${row.kind}#${fingerprint}`,
        provider: row.provider,
        account: row.account,
        day,
        category: 'row-changed',
        detectedAt: this.now(),
        providerId: row.providerId,
        ...(known.reference ? { reference: known.reference } : {}),
        expected: `${known.kind} in ${known.amountIn} out ${known.amountOut} ${known.status ?? ''}`.trim(),
        actual: `${row.kind} in ${row.amountIn} out ${row.amountOut} ${row.status ?? ''}`.trim(),
        detail: `row ${row.providerId} came again with other content (${row.origin.ref}${row.origin.row ? ` line ${row.origin.row}` : ''}); the first import stands`,
        origin: row.origin,
      }),
      options,
      result,
    );
  }

  private get ingestDeps() {
    return { ...this.deps, reconciliation: this.deps.config.reconciliation };
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }

  private async recordBreak(
    found: StatementBreak,
    options: StatementIngestOptions,
    result: StatementIngestResult,
  ): Promise<void> {
    // Counted only when new: a break is stored once (by its id), so a file imported again that shows
    // the same break (a row-changed row) reports no break, as it changes nothing.
    if (options.dryRun) {
      const known = await this.deps.statements.listBreaks(found);
      if (!known.some((b) => b.id === found.id)) result.breaks++;
      return;
    }
    if (await this.deps.statements.putBreak(found)) result.breaks++;
  }

  /** What the row is and does: linked fee or reversal, a matched payment, a late resolution, an opening. */
  private async place(
    row: StatementRow,
    day: string,
    settings: StatementSettings,
    options: StatementIngestOptions,
    result: StatementIngestResult,
    finder: TransactionFinder,
  ): Promise<Placed> {
    const base = {
      provider: row.provider,
      account: row.account,
      day,
      detectedAt: this.now(),
      origin: row.origin,
    };
    if (row.kind === 'other') return { effect: 'not-a-payment' };
    if (row.kind === 'fee') {
      const tx = await finder.find(row, row.linkedProviderId ?? row.providerId);
      result.feesLinked++;
      return { effect: 'fee-linked', ...(tx ? { reference: tx.key.reference } : {}) };
    }
    if (row.kind === 'reversal') {
      const tx = row.linkedProviderId ? await finder.find(row, row.linkedProviderId) : undefined;
      if (!tx) {
        await this.recordBreak(
          newBreak({
            ...base,
            subject: `reversal#${row.providerId}`,
            category: 'missing-in-relay',
            providerId: row.providerId,
            amount: rowAmount(row),
            detail: `a reversal row ${row.providerId} names no payment the relay knows${row.linkedProviderId ? ` (linked ${row.linkedProviderId})` : ''}`,
          }),
          options,
          result,
        );
        return { effect: 'unmatched' };
      }
      // A reversal the relay already recorded (TransactionReversed) is linked; one it never heard of
      // contradicts the SUCCEEDED it published.
      if (tx.status === 'SUCCEEDED' && !tx.reversals?.length)
        await this.recordBreak(
          newBreak({
            ...base,
            subject: `reversal#${row.providerId}`,
            category: 'status-mismatch',
            providerId: row.providerId,
            reference: tx.key.reference,
            amount: rowAmount(row),
            expected: 'SUCCEEDED',
            actual: 'REVERSED',
            detail: `the relay published SUCCEEDED; the provider's records show reversal ${row.providerId} of it`,
          }),
          options,
          result,
        );
      return { effect: 'reversal-linked', reference: tx.key.reference };
    }
    return this.placePayment(row, day, settings, options, result, finder);
  }

  private async placePayment(
    row: StatementRow,
    day: string,
    settings: StatementSettings,
    options: StatementIngestOptions,
    result: StatementIngestResult,
    finder: TransactionFinder,
  ): Promise<Placed> {
    const base = {
      provider: row.provider,
      account: row.account,
      day,
      detectedAt: this.now(),
      origin: row.origin,
    };
    const claim = rowClaim(row);
    // "Attempted", or a word the relay does not know: no money moved that the row vouches for.
    if (!claim) return { effect: 'not-a-payment' };
    const placing: PaymentPlacing = {
      row,
      settings,
      options,
      result,
      finder,
      base,
      claim,
      amount: rowAmount(row),
    };
    let tx = await finder.find(row, row.providerId);
    // No key names it: a payment the relay knows without its receipt may be this one (pairing).
    const candidates =
      !tx && claim === 'SUCCEEDED' && row.amountIn !== '0'
        ? await this.pairingCandidates(row, settings)
        : { paired: [], late: [] };
    if (await this.leftToAPerson(placing, candidates)) return { effect: 'unmatched' };
    const pairedWith = candidates.paired[0];
    if (pairedWith) tx = pairedWith;
    if (!tx) return this.placeUnknownPayment(placing);
    return this.applyToTransaction(placing, tx, pairedWith !== undefined);
  }

  /** The row's money has no one transaction (several could be it, or none is): one break per row. */
  private missingInRelay(
    { row, options, result, base, amount }: PaymentPlacing,
    fields: Pick<StatementBreak, 'detail' | 'expected' | 'resolution' | 'reference'>,
  ): Promise<void> {
    return this.recordBreak(
      newBreak({
        ...base,
        subject: row.providerId,
        category: 'missing-in-relay',
        providerId: row.providerId,
        amount,
        ...fields,
      }),
      options,
      result,
    );
  }

  /**
   * More than one payment could be this money, or one could be if the row was posted late: the relay
   * does not guess, nor opens another payment beside them; a person pairs it. True when it is so.
   */
  private async leftToAPerson(
    placing: PaymentPlacing,
    candidates: { paired: TransactionRecord[]; late: TransactionRecord[] },
  ): Promise<boolean> {
    const doubt =
      candidates.paired.length > 1 ? candidates.paired : candidates.paired.length ? [] : candidates.late;
    if (doubt.length === 0) return false;
    const { row, settings, amount } = placing;
    const references = doubt.map((c) => c.key.reference);
    const why =
      candidates.paired.length > 1
        ? `${doubt.length} ${doubt[0]!.kind} transactions with no receipt could each be`
        : `${doubt.length} ${doubt[0]!.kind} transaction(s) with no receipt could be, had the row been posted late (dated outside the ${settings.timeToleranceSeconds} s tolerance)`;
    await this.missingInRelay(placing, {
      expected: `one of ${references.join(', ')}`,
      detail: `money moved (${row.providerId}, ${amount} at ${row.time}) that ${why} (${references.join(', ')}): not paired, not opened; a person pairs it`,
    });
    return true;
  }

  /** Money the relay has no transaction for: a break, and the transaction opened when the account says so. */
  private async placeUnknownPayment(placing: PaymentPlacing): Promise<Placed> {
    const { row, settings, options, result, finder, claim, amount } = placing;
    if (claim === 'FAILED') return { effect: 'not-a-payment' };
    const opens = settings.opensKind !== undefined && row.amountIn !== '0';
    await this.missingInRelay(placing, {
      detail: opens
        ? `money moved (${row.providerId}) and no callback ever came; the row opened the transaction`
        : `money moved (${row.providerId}) that the relay has no transaction for`,
      ...(opens ? { resolution: 'opened' as const, reference: row.providerId } : {}),
    });
    if (!opens) return { effect: 'unmatched' };
    const report = this.report(
      row,
      undefined,
      settings.opensKind!,
      claim,
      amount,
      row.providerId,
      options.actor,
    );
    if (report.statement.aboveLimit !== undefined) result.heldAboveLimit++;
    if (!options.dryRun) {
      await ingestReport(
        this.ingestDeps,
        report,
        // Its business day is the row's (when the money moved), not the day the row was imported.
        { born: { attributes: { [MOVED_AT_ATTRIBUTE]: row.time } } },
      );
      // A later row of the batch (its charge, a copy) reads the transaction it opened.
      finder.forget(row, [row.providerId, row.externalId]);
    }
    result.opened++;
    return { effect: 'opened', reference: row.providerId };
  }

  /** The row's report applied to its transaction (decided only, on a dry run), and what that made of the row. */
  private async applyToTransaction(
    placing: PaymentPlacing,
    tx: TransactionRecord,
    paired: boolean,
  ): Promise<Placed> {
    const { row, options, result, finder, claim } = placing;
    const { reported, amountAgrees } = await this.checkAmount(placing, tx);
    const report = this.report(row, tx, tx.kind, claim, reported, tx.key.reference, options.actor);
    if (report.statement.aboveLimit !== undefined && tx.status !== claim) result.heldAboveLimit++;
    const outcome = options.dryRun
      ? decideReport(tx, report, this.applyContext(tx))
      : // The transaction as the matcher just read it: the write loop does not read it again.
        await ingestReport(this.ingestDeps, report, { initial: tx });
    // The receipt now names the paired payment, as a callback's would: the same row again (a late or
    // duplicated copy, the pull) is found by key, and the payment is no candidate for another row.
    if (paired && !options.dryRun && outcome.kind === 'write')
      await this.deps.store.putRecordIfAbsent({
        provider: row.provider,
        account: row.account,
        namespace: `${ALIAS_NAMESPACE_PREFIX}${RECEIPT_ALIAS}`,
        id: row.providerId,
        data: { reference: tx.key.reference, pairedBy: 'statement' },
        createdAt: this.now(),
      });
    // A later row of the batch naming this transaction reads it as this write left it.
    if (!options.dryRun && outcome.kind === 'write')
      finder.forget(row, [tx.key.reference, row.providerId, row.externalId]);
    const conflict =
      outcome.kind === 'write' && outcome.events.some((e) => e.metadata.type === 'TransactionConflict');
    if (conflict) {
      result.conflicts++;
      // Another amount is its own break (checkAmount); a status break is a final verdict the row contradicts.
      if (amountAgrees && (tx.status === 'SUCCEEDED' || tx.status === 'FAILED') && tx.status !== claim)
        await this.recordStatusMismatch(placing, tx, tx.status);
      return { effect: 'conflict', reference: tx.key.reference };
    }
    if (settled(outcome, claim)) {
      result.settled++;
      return { effect: 'settled', reference: tx.key.reference };
    }
    result.matched++;
    return { effect: 'matched', reference: tx.key.reference };
  }

  /**
   * The amount the row reports: the transaction's when within the tolerance (the decision compares
   * exactly), else the row's own, with an amount break.
   */
  private async checkAmount(
    { row, settings, options, result, base, claim, amount }: PaymentPlacing,
    tx: TransactionRecord,
  ): Promise<{ reported: string; amountAgrees: boolean }> {
    if (claim !== 'SUCCEEDED' || !tx.amount) return { reported: amount, amountAgrees: true };
    const compared = compareAmounts(amount, tx.amount.value, settings.amountTolerance);
    if (compared.within) return { reported: tx.amount.value, amountAgrees: true };
    await this.recordBreak(
      newBreak({
        ...base,
        subject: `${row.providerId}#amount`,
        category: compared.difference.startsWith('-') ? 'amount-under' : 'amount-over',
        providerId: row.providerId,
        reference: tx.key.reference,
        amount: compared.difference.replace(/^-/, ''),
        expected: tx.amount.value,
        actual: amount,
        detail: `the provider moved ${amount}; the transaction is for ${tx.amount.value} (tolerance ${settings.amountTolerance})`,
      }),
      options,
      result,
    );
    return { reported: amount, amountAgrees: false };
  }

  private recordStatusMismatch(
    { row, options, result, base, claim, amount }: PaymentPlacing,
    tx: TransactionRecord,
    verdict: 'SUCCEEDED' | 'FAILED',
  ): Promise<void> {
    return this.recordBreak(
      newBreak({
        ...base,
        subject: `${row.providerId}#status`,
        category: 'status-mismatch',
        providerId: row.providerId,
        reference: tx.key.reference,
        amount,
        expected: verdict,
        actual: claim,
        detail: `the relay's verdict is ${verdict}; the provider's records say ${claim === 'SUCCEEDED' ? 'money moved' : 'it failed'} (${row.providerId}); a TransactionConflict asks a person`,
      }),
      options,
      result,
    );
  }

  /**
   * The account's transactions with no receipt that could be the payment a row shows
   * (domain/statement-match.ts pairingCandidate): read from the account-day index around the row's time
   * (from the time tolerance before it to the pairing look-ahead after: a verdict comes after the money).
   */
  private async pairingCandidates(
    row: StatementRow,
    settings: StatementSettings,
  ): Promise<{ paired: TransactionRecord[]; late: TransactionRecord[] }> {
    const found = { paired: [] as TransactionRecord[], late: [] as TransactionRecord[] };
    if (settings.pairsKinds.length === 0) return found;
    const time = Date.parse(row.time);
    const tolerance = settings.timeToleranceSeconds * 1000;
    const entries = await this.deps.store.listAccountDay(
      row.provider,
      row.account,
      new Date(time - tolerance - PAIRING_LOOKBACK_SECONDS * 1000).toISOString(),
      new Date(time + tolerance + PAIRING_LOOKAHEAD_SECONDS * 1000).toISOString(),
    );
    for (const entry of entries) {
      // The index holds what rules most out (a receipt, another amount) without reading the item.
      if (entry.providerTransactionId || !entry.amount) continue;
      if (!compareAmounts(rowAmount(row), entry.amount.value, settings.amountTolerance).within) continue;
      const tx = await this.deps.store.getTransaction(entry.key);
      if (!tx) continue;
      if (pairingCandidate(row, tx, settings)) found.paired.push(tx);
      else if (pairingCandidate(row, tx, settings, PAIRING_LOOKBACK_SECONDS)) found.late.push(tx);
    }
    return found;
  }

  private applyContext(tx: TransactionRecord) {
    return decisionContext(this.deps.config.reconciliation, tx, this.now());
  }

  /** The row as a report: origin `statement`, the provider's record as evidence, who brought it. */
  private report(
    row: StatementRow,
    tx: TransactionRecord | undefined,
    kind: string,
    claim: 'SUCCEEDED' | 'FAILED',
    amount: string,
    reference: string,
    actor: StatementIngestOptions['actor'],
  ): NormalizedReport & { statement: NonNullable<NormalizedReport['statement']> } {
    const actorName = actor.kind === 'person' ? actor.name : 'system';
    // A file is one person's upload: above the account's four-eyes limit its row is a claim (held for the
    // status API, or a resolution a second person approves), never a verdict (docs/roles-and-audit.md).
    const aboveLimit =
      row.source === 'statement-file'
        ? limitExceeded(
            this.deps,
            { provider: row.provider, account: row.account },
            amountAtStake(amount, tx),
          )
        : undefined;
    const statement = {
      source: row.source,
      ref: row.origin.ref,
      ...(row.origin.row ? { row: row.origin.row } : {}),
      actor,
      ...(aboveLimit !== undefined ? { aboveLimit } : {}),
    };
    return {
      key: { provider: row.provider, account: row.account, reference },
      kind,
      status: claim,
      reason:
        claim === 'FAILED'
          ? {
              code: 'UNKNOWN',
              message: `the provider's records say ${row.status ?? 'failed'}`,
              providerCode: row.status,
            }
          : undefined,
      providerTransactionId: row.providerId,
      externalId: row.externalId,
      amount: { value: amount, currency: row.currency ?? tx?.amount?.currency },
      party: undefined,
      receivedAt: this.now(),
      // The contract's origins: the relay's own pull is `poll`, a file a person brought is `manual`; the
      // evidence names the statement (source `statement`, docs/events.md#origins).
      origin: row.source === 'statement-file' ? 'manual' : 'poll',
      receiptId: undefined,
      attributes: undefined,
      said: {
        providerCode: row.status,
        description: `${row.source} ${row.origin.ref}${row.origin.row ? ` line ${row.origin.row}` : ''} (${actorName})${aboveLimit !== undefined ? `, above the four-eyes limit ${aboveLimit}: held for the status API or a second person` : ''}`,
      },
      ...(aboveLimit !== undefined ? { needsConfirmation: true, confirmFailure: true } : {}),
      statement,
      eventDetail: {
        settledByStatement: {
          source: row.source,
          ref: row.origin.ref,
          ...(row.origin.row ? { row: row.origin.row } : {}),
          actor: actorName,
        },
      },
    };
  }

  async recordBalance(snapshot: BalanceSnapshot, options: StatementIngestOptions): Promise<void> {
    await recordBalance(this.deps, snapshot, options);
  }
}

/** The outcome settled the transaction to what the row claims (it was PENDING, AMBIGUOUS or EXPIRED). */
function settled(outcome: ApplyOutcome, claim: string): boolean {
  return outcome.kind === 'write' && outcome.effect === 'advanced' && outcome.next.status === claim;
}

/** Kinds whose money moves another balance than this account's balance API reports (its provider says). */
function balanceLeavesOut(config: RelayConfig, provider: string, account: string): readonly string[] {
  const settings = config.accounts.get(accountKey(provider, account))?.settings;
  return settings === undefined ? [] : (statementsOf(provider).balanceLeavesOut?.(settings) ?? []);
}

/**
 * How far before an interval the relay looks for payments whose reversal may fall in it: their
 * reconciliation window (a reversal the relay knows of a payment older than this is not counted).
 */
const REVERSAL_LOOKBACK_SECONDS = 3 * 86_400;

/**
 * A balance snapshot: stored once. Against the one before it, the balance's move is compared with what
 * the relay knows now ({@link intervalDrift}); the answer is provisional, logged, not stored: the fee rows
 * and the rows that date each payment come with the day's statements and pulls, later than the snapshot,
 * so a drift is judged (and stored as a break) by the day's close, when the day's records are in.
 */
export async function recordBalance(
  deps: StatementDeps,
  snapshot: BalanceSnapshot,
  options: StatementIngestOptions,
): Promise<StatementBreak | undefined> {
  const { provider, account } = snapshot;
  const previous = await deps.statements.balanceBefore(provider, account, snapshot.at, snapshot.currency);
  if (!options.dryRun) {
    const written = await deps.statements.putBalance({
      ...snapshot,
      recordedAt: deps.clock.now().toISOString(),
      actor: options.actor,
    });
    if (!written) return undefined;
  }
  if (!previous) return undefined;
  const books = await readBooks(deps, snapshot, previous.at, snapshot.at, new Map());
  const found = intervalDrift(deps, books, previous, snapshot);
  if (found)
    deps.log.info("balance drift so far (judged at the day's close)", {
      provider,
      account,
      from: previous.at,
      to: snapshot.at,
      drift: found.detail,
    });
  return found;
}

/**
 * The balance-drift breaks of a business day: each interval between two snapshots that ends in the day,
 * judged with the day's records in (docs/statements.md#breaks). Every read is made once for all the
 * day's intervals and bounded by the account and the intervals' span: the day's snapshots (one query and
 * the one before them), the rows of the span's days and one either side (`rowsOfDays`: the ones the
 * caller already read are not read again), and the account's transactions from the account-day index.
 */
export async function balanceDriftsOfDay(
  deps: StatementDeps,
  at: { provider: string; account: string },
  span: { start: number; end: number },
  rowsOfDays: ReadonlyMap<string, StoredStatementRow[]> = new Map(),
): Promise<StatementBreak[]> {
  const inDay = await deps.statements.listBalances(
    at.provider,
    at.account,
    new Date(span.start).toISOString(),
    new Date(span.end).toISOString(),
  );
  if (inDay.length === 0) return [];
  // Each currency's snapshots are a series of their own (a multi-currency account: one per instant each).
  const series: StoredBalance[][] = [];
  for (const currency of new Set(inDay.map((b) => b.currency ?? ''))) {
    const ofCurrency = inDay.filter((b) => sameCurrency(b.currency, currency));
    const before = await deps.statements.balanceBefore(
      at.provider,
      at.account,
      ofCurrency[0]!.at,
      ofCurrency[0]!.currency,
    );
    const snapshots = before ? [before, ...ofCurrency] : ofCurrency;
    if (snapshots.length >= 2) series.push(snapshots);
  }
  if (series.length === 0) return [];
  const from = series.map((s) => s[0]!.at).sort()[0]!;
  const to = series
    .map((s) => s.at(-1)!.at)
    .sort()
    .at(-1)!;
  const books = await readBooks(deps, at, from, to, rowsOfDays);
  const found: StatementBreak[] = [];
  for (const snapshots of series)
    for (let i = 1; i < snapshots.length; i++) {
      const drift = intervalDrift(deps, books, snapshots[i - 1]!, snapshots[i]!);
      if (drift) found.push(drift);
    }
  return found;
}

/** What the relay knows of an account's money between two instants, read once for every interval in it. */
interface Books {
  rows: StoredStatementRow[];
  /** When each transaction's money moved by the provider's own row for it (its earliest). */
  rowTime: Map<string, string>;
  transactions: TransactionRecord[];
  /** Transactions whose money moves another balance (balanceLeavesOut). */
  leftOut: Set<string>;
}

/**
 * The rows and transactions that may add to the balance's move between `from` and `to`:
 * - the rows of the business days of `from` to `to` and one either side (a payment's row may be dated
 *   there), each day read once (`known` days not at all);
 * - the transactions whose day time is in the span (the account-day index, whose key is when a payment
 *   without a row moved: its verdict, or the row that opened it), and, back to the reversal look-back,
 *   the successes a reversal may have reached since; only successes are read, each once;
 * - the transactions the span's rows name (a row dates its payment's move; its verdict may be days later).
 */
async function readBooks(
  deps: StatementDeps,
  at: { provider: string; account: string },
  from: string,
  to: string,
  known: ReadonlyMap<string, StoredStatementRow[]>,
): Promise<Books> {
  const { provider, account } = at;
  const settings = statementSettings(deps.config, provider, account);
  const days: string[] = [];
  const last = nextDay(businessDayOf(to, settings));
  for (let day = previousDay(businessDayOf(from, settings)); day <= last; day = nextDay(day)) days.push(day);
  const rows = (
    await Promise.all(
      days.map((day) => known.get(day) ?? deps.statements.listRows({ provider, account, day })),
    )
  ).flat();
  const rowTime = new Map<string, string>();
  for (const row of rows)
    if (row.kind === 'payment' && row.reference && MOVED_EFFECTS.has(row.effect)) {
      const time = new Date(row.time).toISOString();
      const seen = rowTime.get(row.reference);
      if (!seen || time < seen) rowTime.set(row.reference, time);
    }
  const entries = await (deps.accountDays ?? deps.store).listAccountDay(
    provider,
    account,
    new Date(Date.parse(from) - REVERSAL_LOOKBACK_SECONDS * 1000).toISOString(),
    // The index's range leaves its end out: the last instant of the span is in.
    new Date(Date.parse(to) + 1).toISOString(),
  );
  const references = new Set(entries.filter((e) => e.status === 'SUCCEEDED').map((e) => e.key.reference));
  // A charge in the span counts with its payment: the payment its row names is read too.
  const paymentRows = new Map(rows.filter((r) => r.kind === 'payment').map((r) => [r.providerId, r]));
  for (const row of rows) {
    const time = new Date(row.time).toISOString();
    if (time <= from || time > to) continue;
    if (row.reference) references.add(row.reference);
    const payment = row.linkedProviderId ? paymentRows.get(row.linkedProviderId) : undefined;
    if (row.kind === 'fee' && payment?.reference) references.add(payment.reference);
  }
  const transactions: TransactionRecord[] = [];
  for (const reference of references) {
    const tx = await deps.store.getTransaction({ provider, account, reference });
    if (tx) transactions.push(tx);
  }
  const leavesOut = balanceLeavesOut(deps.config, provider, account);
  const leftOut = new Set(
    transactions.filter((tx) => leavesOut.includes(tx.kind)).map((tx) => tx.key.reference),
  );
  return { rows, rowTime, transactions, leftOut };
}

/**
 * Between two snapshots, the balance's move against the relay's finals in between (money in minus money
 * out, reversals back out) and the known fees (fee rows and fee columns of the provider's records). A
 * payment counts when its money moved: the time of the provider's own row for it (a statement or pull
 * row dates the move; the verdict comes later, after the callback or a status query, and a snapshot
 * taken between the two would put it in the wrong interval), else the row that opened it, else its
 * verdict. A difference is a balance-drift break with its amount.
 */
function intervalDrift(
  deps: StatementDeps,
  books: Books,
  previous: BalanceSnapshot,
  snapshot: BalanceSnapshot,
): StatementBreak | undefined {
  const { provider, account } = snapshot;
  const from = previous.at;
  const to = snapshot.at;
  const inside = (time: string | undefined) => time !== undefined && time > from && time <= to;
  const settings = statementSettings(deps.config, provider, account);
  const { rows, rowTime, leftOut } = books;
  const terms: { value: string; sign: 1 | -1 }[] = [];
  // Money of another currency moved another balance (a multi-currency account); an amount or a row
  // that names no currency is counted, as before accounts held several.
  const ofThisBalance = (currency: string | undefined) =>
    !currency || !snapshot.currency || sameCurrency(currency, snapshot.currency);
  for (const tx of books.transactions) {
    if (!tx.amount || leftOut.has(tx.key.reference) || !ofThisBalance(tx.amount.currency)) continue;
    const sign = bringsMoneyIn(statementsOf(provider), tx.kind) ? 1 : -1;
    const moved = rowTime.get(tx.key.reference) ?? dayTimeOf(tx);
    if (tx.status === 'SUCCEEDED' && inside(moved)) terms.push({ value: tx.amount.value, sign });
    for (const reversal of tx.reversals ?? [])
      if (inside(reversal.at))
        terms.push({ value: reversal.amount?.value ?? tx.amount.value, sign: sign === 1 ? -1 : 1 });
  }
  // A charge is counted with its payment: when the payment it names (linked at import, or through its
  // payment's row since) is a transaction this balance counts. One on a payment that moved another short code's balance is not this balance's; one on a row
  // no transaction holds (its money a missing-in-relay break) or on a row the records lack: nobody can
  // say which balance it moved, it waits with its payment. A charge that names no payment is counted.
  const paymentRows = new Map(rows.filter((r) => r.kind === 'payment').map((r) => [r.providerId, r]));
  const counted = (reference: string | undefined) => reference !== undefined && !leftOut.has(reference);
  for (const row of rows) {
    if (!inside(new Date(row.time).toISOString()) || !ofThisBalance(row.currency)) continue;
    if (row.kind === 'fee') {
      const payment = row.linkedProviderId ? paymentRows.get(row.linkedProviderId) : undefined;
      if (row.linkedProviderId && !counted(row.reference) && !counted(payment?.reference)) continue;
      terms.push({ value: rowAmount(row), sign: row.amountIn !== '0' ? 1 : -1 });
    } else if (row.fee && counted(row.reference)) terms.push({ value: row.fee, sign: -1 });
  }
  const expected = terms.length ? decimalSum(...terms) : '0';
  const actual = decimalSum({ value: snapshot.balance, sign: 1 }, { value: previous.balance, sign: -1 });
  const drift = decimalSum({ value: actual, sign: 1 }, { value: expected, sign: -1 });
  if (drift === '0') return undefined;
  const currency = snapshot.currency ? ` ${snapshot.currency}` : '';
  const unconfirmed = [previous, snapshot].filter(unconfirmedBalance).map((b) => b.at);
  const caveat = unconfirmed.length
    ? `; the balance at ${unconfirmed.join(' and ')} is unconfirmed (an unsigned callback's)`
    : '';
  return newBreak({
    // The currency names the series: two currencies' drifts over one interval are two breaks.
    subject: `${from}..${to}${currency}`,
    provider,
    account,
    day: businessDayOf(to, settings),
    category: 'balance-drift',
    detectedAt: deps.clock.now().toISOString(),
    amount: drift.replace(/^-/, ''),
    expected,
    actual,
    detail: `the${currency} balance moved ${actual} between ${from} and ${to}; the relay's finals and known fees say ${expected} (drift ${drift})${caveat}`,
  });
}

/** Row effects that say the row's money is its transaction's: the row's time is when that money moved. */
const MOVED_EFFECTS: ReadonlySet<string> = new Set(['matched', 'settled', 'opened', 'conflict']);
