import type { AccountDay, RowKey, StatementStore, StoredClose } from '../../app/statements/statement-store';
import type {
  DailyCloseReport,
  RetiredBreak,
  StatementBreak,
  StoredBalance,
  StoredStatementRow,
} from '../../domain/statement';
import type { EventEnvelope } from '../../domain/event-envelope';
import { sameCurrency } from '../../domain/statement';

const dayKey = (at: AccountDay) => `${at.provider}#${at.account}#${at.day}`;
const clone = <T>(value: T): T => structuredClone(value);

/** The statement port in memory (unit tests): the same first-writer-wins rules as the DynamoDB adapter. */
export class MemoryStatementStore implements StatementStore {
  readonly rows = new Map<string, Map<string, StoredStatementRow>>();
  readonly breaks = new Map<string, Map<string, StatementBreak>>();
  readonly retired = new Map<string, RetiredBreak[]>();
  readonly balances = new Map<string, StoredBalance[]>();
  readonly closes = new Map<string, DailyCloseReport>();
  /** Every DailyClosed written, in order (what the stream would publish). */
  readonly published: EventEnvelope[] = [];

  async getRow(at: AccountDay, providerId: string, kind: string) {
    const row = this.rows.get(dayKey(at))?.get(`${providerId}#${kind}`);
    return row && clone(row);
  }

  async getRows(at: AccountDay, keys: readonly RowKey[]) {
    const day = this.rows.get(dayKey(at));
    const keyed = new Set(keys.map((k) => `${k.providerId}#${k.kind}`));
    return [...keyed].flatMap((key) => {
      const row = day?.get(key);
      return row ? [clone(row)] : [];
    });
  }

  async putRows(rows: readonly StoredStatementRow[]) {
    const written: boolean[] = [];
    for (const row of rows) written.push(await this.putRow(row));
    return written;
  }

  async putRow(row: StoredStatementRow) {
    const day = this.rows.get(dayKey(row)) ?? new Map<string, StoredStatementRow>();
    this.rows.set(dayKey(row), day);
    const key = `${row.providerId}#${row.kind}`;
    if (day.has(key)) return false;
    day.set(key, clone(row));
    return true;
  }

  async listRows(at: AccountDay) {
    return [...(this.rows.get(dayKey(at))?.entries() ?? [])]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, row]) => clone(row));
  }

  async putBreak(found: StatementBreak) {
    const day = this.breaks.get(dayKey(found)) ?? new Map<string, StatementBreak>();
    this.breaks.set(dayKey(found), day);
    if (day.has(found.id)) return false;
    day.set(found.id, clone(found));
    return true;
  }

  async listBreaks(at: AccountDay) {
    return [...(this.breaks.get(dayKey(at))?.values() ?? [])].map(clone);
  }

  async retireBreak(retired: RetiredBreak) {
    const day = this.breaks.get(dayKey(retired));
    if (!day?.delete(retired.id)) return false;
    this.retired.set(dayKey(retired), [...(this.retired.get(dayKey(retired)) ?? []), clone(retired)]);
    return true;
  }

  async listRetiredBreaks(at: AccountDay) {
    return [...(this.retired.get(dayKey(at)) ?? [])]
      .sort((a, b) => a.retiredAt.localeCompare(b.retiredAt))
      .map(clone);
  }

  async listBalances(provider: string, account: string, from: string, to: string) {
    return (this.balances.get(`${provider}#${account}`) ?? [])
      .filter((b) => b.at >= from && b.at < to)
      .map(clone);
  }

  async putBalance(snapshot: StoredBalance) {
    const key = `${snapshot.provider}#${snapshot.account}`;
    const list = this.balances.get(key) ?? [];
    if (list.some((b) => b.at === snapshot.at && sameCurrency(b.currency, snapshot.currency))) return false;
    this.balances.set(
      key,
      [...list, clone(snapshot)].sort((a, b) => a.at.localeCompare(b.at)),
    );
    return true;
  }

  async balanceBefore(provider: string, account: string, at: string, currency?: string) {
    const list = this.balances.get(`${provider}#${account}`) ?? [];
    const found = [...list].reverse().find((b) => b.at < at && sameCurrency(b.currency, currency));
    return found && clone(found);
  }

  async putClose(at: AccountDay, close: StoredClose) {
    if (this.closes.has(dayKey(at))) return false;
    this.closes.set(dayKey(at), clone(close.report));
    this.published.push(...close.outbox);
    return true;
  }

  async getClose(at: AccountDay) {
    const found = this.closes.get(dayKey(at));
    return found && clone(found);
  }

  async listCloses(provider: string, account: string, limit: number) {
    return [...this.closes.values()]
      .filter((c) => c.provider === provider && c.account === account)
      .sort((a, b) => b.day.localeCompare(a.day))
      .slice(0, limit)
      .map(clone);
  }
}
