import type {
  AccountDayEntry,
  ApprovalRequest,
  AuditEntry,
  CreatedEntry,
  DueItem,
  LookupBy,
  LookupEntry,
  ProviderRecord,
  ProviderRecordRef,
  QuarantineDecision,
  QuarantineEntry,
  QuarantineInput,
  ReceiptInput,
  ReceiptPage,
  RefusedCallbackRef,
  ReceiptResult,
  RelayStore,
  StoredReceiptView,
  UnscheduledScan,
  WriteOptions,
} from '../../app/ports';
import { StorageUnavailableError } from '../../domain/errors';
import type { EventEnvelope } from '../../domain/event-envelope';
import { dueAtOf } from '../../domain/reconcile-schedule';
import { dayTimeOf } from '../../domain/statement-match';
import type { TransactionKey, TransactionRecord } from '../../domain/transaction';

const keyOf = (k: TransactionKey) => `${k.provider}#${k.account}#${k.reference}`;
const refOf = (r: ProviderRecordRef) => `${r.provider}#${r.account}#${r.namespace}#${r.id}`;
const copy = <T>(value: T): T => structuredClone(value);

interface StoredReceipt extends ReceiptInput {
  receiptId: string;
  deliveries: number;
  firstReceivedAt: string;
  lastReceivedAt: string;
  bodyBytes?: number;
  bodyDropped?: boolean;
}

/**
 * The ports in memory, with the same conditional semantics as the DynamoDB adapter (create only when
 * absent, replace only at the expected revision, first record wins), for fast use-case tests. It also
 * collects every outbox the way the table's stream would publish it. Not a substitute for the
 * DynamoDB Local tests of the adapter.
 */
export class MemoryStore implements RelayStore, UnscheduledScan {
  /** `now` decides when a record's own lifetime ends (tests with a fixed clock pass theirs). */
  constructor(private readonly clock: { now(): Date } = { now: () => new Date() }) {}

  readonly transactions = new Map<string, TransactionRecord>();
  readonly receipts = new Map<string, StoredReceipt>();
  readonly records = new Map<string, ProviderRecord>();
  readonly quarantined: QuarantineInput[] = [];
  readonly audit: AuditEntry[] = [];
  readonly approvals = new Map<string, ApprovalRequest>();
  /** Every event a write carried, in write order: what the stream would publish. */
  readonly published: EventEnvelope[] = [];
  /** Set to make every call fail (or hang until the signal aborts), to test outages. */
  failure: 'none' | 'error' | 'hang' = 'none';

  private async gate(signal?: AbortSignal): Promise<void> {
    // As the SDK does: a call whose signal already aborted is not made.
    if (signal?.aborted) throw new StorageUnavailableError('memory store: aborted');
    if (this.failure === 'error') throw new StorageUnavailableError('memory store: simulated outage');
    if (this.failure === 'hang') {
      await new Promise<void>((_, reject) => {
        signal?.addEventListener(
          'abort',
          () => reject(new StorageUnavailableError('memory store: aborted')),
          {
            once: true,
          },
        );
      });
    }
  }

  async recordReceipt(input: ReceiptInput, options: { signal?: AbortSignal } = {}): Promise<ReceiptResult> {
    await this.gate(options.signal);
    const receiptId = input.dedupeKey.slice(0, 32);
    const id = `${keyOf(input.key)}#${receiptId}`;
    const existing = this.receipts.get(id);
    if (existing) {
      existing.deliveries += 1;
      existing.lastReceivedAt = input.receivedAt;
      return { receiptId, deliveries: existing.deliveries };
    }
    this.receipts.set(id, {
      ...copy(input),
      receiptId,
      deliveries: 1,
      firstReceivedAt: input.receivedAt,
      lastReceivedAt: input.receivedAt,
    });
    return { receiptId, deliveries: 1 };
  }

  async getTransaction(
    key: TransactionKey,
    options: { signal?: AbortSignal } = {},
  ): Promise<TransactionRecord | undefined> {
    await this.gate(options.signal);
    const tx = this.transactions.get(keyOf(key));
    return tx ? copy(tx) : undefined;
  }

  async getTransactions(keys: readonly TransactionKey[]): Promise<TransactionRecord[]> {
    const found: TransactionRecord[] = [];
    for (const key of keys) {
      const tx = await this.getTransaction(key);
      if (tx) found.push(tx);
    }
    return found;
  }

  async createTransaction(tx: TransactionRecord, options: { signal?: AbortSignal } = {}): Promise<boolean> {
    await this.gate(options.signal);
    if (this.transactions.has(keyOf(tx.key))) return false;
    this.transactions.set(keyOf(tx.key), copy(tx));
    this.published.push(...copy(tx.outbox));
    return true;
  }

  async replaceTransaction(
    tx: TransactionRecord,
    expectedRevision: number,
    options: { signal?: AbortSignal } = {},
  ): Promise<boolean> {
    await this.gate(options.signal);
    const current = this.transactions.get(keyOf(tx.key));
    if (!current || current.revision !== expectedRevision) return false;
    this.transactions.set(keyOf(tx.key), copy(tx));
    if (tx.revision !== current.revision) this.published.push(...copy(tx.outbox));
    return true;
  }

  async quarantine(input: QuarantineInput): Promise<void> {
    await this.gate();
    this.quarantined.push(copy(input));
    this.published.push(...copy(input.outbox));
  }

  async listReceipts(key: TransactionKey, page: { limit: number; after?: string }): Promise<ReceiptPage> {
    await this.gate();
    const prefix = `${keyOf(key)}#`;
    // Storage order (receipt ids), like DynamoDB's sort key.
    const all = [...this.receipts.entries()]
      .filter(([id]) => id.startsWith(prefix))
      .map(([, r]) => r)
      .sort((a, b) => a.receiptId.localeCompare(b.receiptId))
      .filter((r) => page.after === undefined || r.receiptId > page.after);
    const receipts = all.slice(0, page.limit).map((r) => ({
      receiptId: r.receiptId,
      routeName: r.routeName,
      method: r.method,
      sourceIp: r.sourceIp,
      firstReceivedAt: r.firstReceivedAt,
      lastReceivedAt: r.lastReceivedAt,
      deliveries: r.deliveries,
      verification: r.verification,
      bodyBytes: r.bodyBytes ?? Buffer.byteLength(r.body),
      ...(r.bodyDropped ? { bodyDropped: true } : {}),
    }));
    return { receipts, ...(all.length > page.limit ? { next: receipts.at(-1)!.receiptId } : {}) };
  }

  async dropReceiptBody(key: TransactionKey, receiptId: string, options: WriteOptions = {}): Promise<void> {
    await this.gate(options.signal);
    const receipt = this.receipts.get(`${keyOf(key)}#${receiptId}`);
    if (!receipt) return;
    receipt.bodyBytes ??= Buffer.byteLength(receipt.body);
    receipt.body = '';
    receipt.bodyDropped = true;
  }

  async getRecord(
    ref: ProviderRecordRef,
    options: { signal?: AbortSignal } = {},
  ): Promise<ProviderRecord | undefined> {
    await this.gate(options.signal);
    const record = this.records.get(refOf(ref));
    // As the DynamoDB adapter: a record with its own lifetime ends on time.
    if (
      record?.lifetimeSeconds &&
      Date.parse(record.createdAt) + record.lifetimeSeconds * 1000 <= this.clock.now().getTime()
    )
      return undefined;
    return record ? copy(record) : undefined;
  }

  async getRecords(
    refs: readonly ProviderRecordRef[],
    _options: { consistent?: boolean } = {},
  ): Promise<ProviderRecord[]> {
    const found: ProviderRecord[] = [];
    for (const ref of refs) {
      const record = await this.getRecord(ref);
      if (record) found.push(record);
    }
    return found;
  }

  async putRecordIfAbsent(
    record: ProviderRecord,
    options: { signal?: AbortSignal } = {},
  ): Promise<{ written: boolean; record: ProviderRecord }> {
    await this.gate(options.signal);
    const existing = this.records.get(refOf(record));
    if (existing) return { written: false, record: copy(existing) };
    this.records.set(refOf(record), copy(record));
    this.published.push(...copy(record.outbox ?? []));
    return { written: true, record };
  }

  readonly counters = new Map<string, { counted: number; refused: number }>();

  async countRecord(
    ref: ProviderRecordRef,
    budget: { limit: number },
    options: WriteOptions = {},
  ): Promise<{ counted: boolean; count: number; refused: number }> {
    await this.gate(options.signal);
    const counter = this.counters.get(refOf(ref)) ?? { counted: 0, refused: 0 };
    this.counters.set(refOf(ref), counter);
    const counted = counter.counted < budget.limit;
    if (counted) counter.counted++;
    else counter.refused++;
    return { counted, count: counter.counted, refused: counter.refused };
  }

  async putRecord(record: ProviderRecord, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.gate(options.signal);
    this.records.set(refOf(record), copy(record));
  }

  /** The due index: non-final transactions with a dueAt (what the DynamoDB adapter projects). */
  async listDue(now: string, limit: number): Promise<{ items: DueItem[]; readItems: number }> {
    await this.gate();
    const items = [...this.transactions.values()]
      .map((tx) => ({ key: copy(tx.key), dueAt: dueAtOf(tx) }))
      .filter((item): item is DueItem => item.dueAt !== undefined && item.dueAt <= now)
      .sort((a, b) => a.dueAt.localeCompare(b.dueAt))
      .slice(0, limit);
    return { items, readItems: items.length };
  }

  async claimDue(
    item: DueItem,
    lease: { until: string; owner: string },
  ): Promise<TransactionRecord | undefined> {
    await this.gate();
    const tx = this.transactions.get(keyOf(item.key));
    if (!tx || dueAtOf(tx) !== item.dueAt) return undefined;
    const next: TransactionRecord = {
      ...tx,
      revision: tx.revision + 1,
      reconcile: { checks: 0, recent: [], ...tx.reconcile, dueAt: lease.until, leaseOwner: lease.owner },
      outbox: [],
    };
    this.transactions.set(keyOf(item.key), next);
    return copy(next);
  }

  async listCreated(from: string, to: string): Promise<TransactionKey[]> {
    await this.gate();
    return [...this.transactions.values()]
      .filter((tx) => tx.createdAt >= from && tx.createdAt <= to)
      .map((tx) => copy(tx.key));
  }

  async listAccountDay(
    provider: string,
    account: string,
    from: string,
    to: string,
  ): Promise<AccountDayEntry[]> {
    await this.gate();
    return [...this.transactions.values()]
      .filter((tx) => tx.key.provider === provider && tx.key.account === account)
      .map((tx) => ({
        key: copy(tx.key),
        at: dayTimeOf(tx),
        status: tx.status,
        amount: tx.amount ? { ...tx.amount } : undefined,
        providerTransactionId: tx.providerTransactionId,
      }))
      .filter((e) => e.at >= from && e.at < to)
      .sort((a, b) => a.at.localeCompare(b.at));
  }

  async scanUnscheduled(): Promise<{ keys: TransactionKey[]; cursor?: string }> {
    await this.gate();
    return {
      keys: [...this.transactions.values()]
        .filter((tx) => (tx.status === 'PENDING' || tx.status === 'AMBIGUOUS') && tx.reconcile === undefined)
        .map((tx) => copy(tx.key)),
    };
  }

  /** Console lookups noted at registration: `<by>#<value>` → entries. */
  readonly lookups = new Map<string, LookupEntry[]>();

  async listCreatedPage(
    range: { from: string; to: string },
    page: { limit: number; before?: CreatedEntry },
  ): Promise<{ entries: CreatedEntry[]; more: boolean }> {
    await this.gate();
    // The DynamoDB adapter's order: createdAt, then the transaction's pk, both descending.
    const pkOf = (k: TransactionKey) => `TX#${keyOf(k)}`;
    const newestFirst = (a: CreatedEntry, b: CreatedEntry) =>
      a.createdAt === b.createdAt
        ? pkOf(b.key).localeCompare(pkOf(a.key))
        : b.createdAt.localeCompare(a.createdAt);
    const all = [...this.transactions.values()]
      .filter((tx) => tx.createdAt >= range.from && tx.createdAt <= range.to)
      .map((tx) => ({ key: copy(tx.key), createdAt: tx.createdAt }))
      .filter((e) => !page.before || newestFirst(page.before, e) < 0)
      .sort(newestFirst);
    return { entries: all.slice(0, page.limit), more: all.length > page.limit };
  }

  async putLookup(by: LookupBy, value: string, entry: LookupEntry): Promise<void> {
    await this.gate();
    const id = `${by}#${value}`;
    const entries = (this.lookups.get(id) ?? []).filter((e) => keyOf(e.key) !== keyOf(entry.key));
    entries.push(copy(entry));
    this.lookups.set(id, entries);
  }

  async findLookups(by: LookupBy, value: string, limit: number): Promise<LookupEntry[]> {
    await this.gate();
    return [...(this.lookups.get(`${by}#${value}`) ?? [])]
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, limit)
      .map(copy);
  }

  async getReceipt(key: TransactionKey, receiptId: string): Promise<StoredReceiptView | undefined> {
    await this.gate();
    const r = this.receipts.get(`${keyOf(key)}#${receiptId}`);
    if (!r) return undefined;
    return copy({
      receiptId: r.receiptId,
      routeName: r.routeName,
      method: r.method,
      path: r.path,
      headers: r.headers,
      sourceIp: r.sourceIp,
      firstReceivedAt: r.firstReceivedAt,
      lastReceivedAt: r.lastReceivedAt,
      deliveries: r.deliveries,
      verification: r.verification,
      bodyBytes: r.bodyBytes ?? Buffer.byteLength(r.body),
      ...(r.bodyDropped ? { bodyDropped: true } : {}),
      body: r.body,
    });
  }

  async listQuarantineDay(
    day: string,
    page: { limit: number; after?: string; facets?: boolean },
  ): Promise<{ entries: QuarantineEntry[]; next?: string }> {
    await this.gate();
    const skOf = (q: QuarantineInput) => `${q.receivedAt}#${q.id}`;
    const all = this.quarantined
      .filter((q) => q.receivedAt.slice(0, 10) === day && (!page.after || skOf(q) < page.after))
      .sort((a, b) => skOf(b).localeCompare(skOf(a)));
    const entries = all.slice(0, page.limit).map(({ outbox: _outbox, ...entry }) => copy(entry));
    return {
      entries,
      ...(all.length > page.limit ? { next: skOf(all[page.limit - 1]!) } : {}),
    };
  }

  /** Decisions on quarantine entries, by `receivedAt#id`. */
  readonly quarantineDecisions = new Map<string, QuarantineDecision>();

  async getQuarantineEntry(receivedAt: string, id: string): Promise<QuarantineEntry | undefined> {
    await this.gate();
    const found = this.quarantined.find((q) => q.receivedAt === receivedAt && q.id === id);
    if (!found) return undefined;
    const { outbox: _outbox, ...entry } = copy(found);
    const decision = this.quarantineDecisions.get(`${receivedAt}#${id}`);
    return decision ? { ...entry, decision: copy(decision) } : entry;
  }

  async claimQuarantineDecision(
    receivedAt: string,
    id: string,
    decision: QuarantineDecision,
  ): Promise<{ result: 'taken' | 'missing' } | { result: 'decided'; decision: QuarantineDecision }> {
    await this.gate();
    if (!this.quarantined.some((q) => q.receivedAt === receivedAt && q.id === id))
      return { result: 'missing' };
    const held = this.quarantineDecisions.get(`${receivedAt}#${id}`);
    if (held) return { result: 'decided', decision: copy(held) };
    this.quarantineDecisions.set(`${receivedAt}#${id}`, copy(decision));
    return { result: 'taken' };
  }

  async settleQuarantineDecision(
    receivedAt: string,
    id: string,
    claim: string,
    decision: QuarantineDecision | undefined,
  ): Promise<void> {
    await this.gate();
    const key = `${receivedAt}#${id}`;
    if (this.quarantineDecisions.get(key)?.claim !== claim)
      throw new StorageUnavailableError(`quarantine decision ${key} is not held by ${claim}`);
    if (decision) this.quarantineDecisions.set(key, copy(decision));
    else this.quarantineDecisions.delete(key);
  }

  async listRefusedFor(key: TransactionKey, limit: number): Promise<RefusedCallbackRef[]> {
    await this.gate();
    return this.quarantined
      .filter(
        (q) => q.reference === key.reference && q.provider === key.provider && q.account === key.account,
      )
      .sort((a, b) => `${b.receivedAt}#${b.id}`.localeCompare(`${a.receivedAt}#${a.id}`))
      .slice(0, limit)
      .map((q) => ({
        quarantineId: q.id,
        receivedAt: q.receivedAt,
        errorCode: q.errorCode,
        httpStatus: q.httpStatus,
      }));
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    await this.gate();
    if (this.audit.some((e) => e.id === entry.id && e.at === entry.at))
      throw new StorageUnavailableError(`audit entry id ${entry.id} collided`);
    this.audit.push(copy(entry));
  }

  async listAuditDay(
    day: string,
    page: { limit: number; after?: string },
  ): Promise<{ entries: AuditEntry[]; next?: string }> {
    await this.gate();
    const skOf = (e: AuditEntry) => `${e.at}#${e.id}`;
    const all = this.audit
      .filter((e) => e.at.slice(0, 10) === day && (!page.after || skOf(e) < page.after))
      .sort((a, b) => skOf(b).localeCompare(skOf(a)));
    const entries = all.slice(0, page.limit).map((e) => copy(e));
    return { entries, ...(all.length > page.limit ? { next: skOf(all[page.limit - 1]!) } : {}) };
  }

  async createApproval(request: ApprovalRequest): Promise<void> {
    await this.gate();
    if (this.approvals.has(request.id))
      throw new StorageUnavailableError(`approval id ${request.id} collided`);
    this.approvals.set(request.id, copy(request));
  }

  async getApproval(id: string): Promise<ApprovalRequest | undefined> {
    await this.gate();
    const found = this.approvals.get(id);
    return found && copy(found);
  }

  async decideApproval(request: ApprovalRequest, expectedState: ApprovalRequest['state']): Promise<boolean> {
    await this.gate();
    if (this.approvals.get(request.id)?.state !== expectedState) return false;
    this.approvals.set(request.id, copy(request));
    return true;
  }

  async listApprovals(limit: number): Promise<ApprovalRequest[]> {
    await this.gate();
    return [...this.approvals.values()]
      .sort((a, b) => b.id.localeCompare(a.id))
      .slice(0, limit)
      .map((r) => copy(r));
  }

  /** Receipts as stored, for assertions. */
  receiptsOf(key: TransactionKey): StoredReceipt[] {
    const prefix = `${keyOf(key)}#`;
    return [...this.receipts.entries()].filter(([id]) => id.startsWith(prefix)).map(([, r]) => r);
  }
}
