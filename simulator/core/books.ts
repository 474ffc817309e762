/**
 * The simulated providers keep the books (issue 29): every money movement a simulated provider completes
 * (a payment in, a payout out, a reversal, the fee it charged) is an entry here, with the account's
 * balance after it. The providers serve these books the way the real ones do: Daraja's Pull
 * Transactions API, the balance APIs, and downloadable statements in the real layouts (statements.ts).
 *
 * Faults (`PUT /_sim/books/faults`, the `books.faults` option) change what is SERVED, never the money
 * moved: every Nth row missing from statements and pulls, duplicated, or posted late (past the next
 * midnight, provider time), fee rows on every payment, a pull that fails inside HTTP 200. Each served
 * row names the fault that shaped it (`fault`), so a reconciliation can say which break it explains.
 */
import type { ProviderName } from './http';
import type { RefusalBudget } from './faults';

type BookEntryKind = 'payment' | 'payout' | 'fee' | 'reversal';

export interface BookEntry {
  provider: ProviderName;
  /** Daraja: the short code; MoMo: the API user; Airtel: the client id. */
  account: string;
  /** MoMo's product (collection, disbursement, remittance): each is its own wallet and balance. */
  subAccount?: string;
  /** The provider's own id: Daraja receipt, MoMo financialTransactionId, Airtel money id. */
  id: string;
  /** The partner's id of the movement (MoMo externalId / referenceId, Airtel transaction id, BillRefNumber). */
  externalId?: string;
  /** Epoch ms when the money moved. */
  time: number;
  kind: BookEntryKind;
  amountIn: number;
  amountOut: number;
  /** The payer or payee number, in full here (statements mask it as the real portals do). */
  counterparty: string;
  counterpartyName?: string;
  /** The payment a fee or reversal row belongs to. */
  linkedId?: string;
  /** Balance of the (sub-)account after this entry. */
  balance: number;
  /** Provider wording: "Pay Bill", "Business Payment", "Pay merchant Charge"… */
  description: string;
  /** Daraja's pull `transactiontype` (c2b-pay-bill-debit, c2b-buy-goods-debit): C2B credits only. */
  pullType?: string;
  currency: string;
}

/** What a served row carries beyond its entry: the fault that shaped it, and its served time. */
export interface ServedEntry extends BookEntry {
  /** `missing` rows are never served; the others are marked on the rows they shaped. */
  fault?: 'duplicate' | 'late' | 'fee';
}

export interface BooksFaults {
  /** Every Nth row of an account is left out of statements and pulls (the money still moved). */
  missingEvery?: number;
  /** Every Nth row is served twice. */
  duplicateEvery?: number;
  /** Every Nth row is served dated past the next midnight (provider time), as a late posting. */
  lateEvery?: number;
  /** Every payment in is charged a fee of this percentage, a row of its own linked to the payment. */
  feePercent?: number;
  /** Daraja pull queries answer HTTP 200 with ResponseCode 1001 and no transaction list (true, or the first N). */
  pullFailure?: RefusalBudget;
  /** Not a fault, a knob: rows per Daraja pull page (default 100), small to exercise OffSetValue paging. */
  pullPageSize?: number;
}

/** Provider time zones of the statements' local times (minutes east of UTC; none of them has summer time). */
export const PROVIDER_UTC_OFFSET_MINUTES: Record<ProviderName, number> = {
  daraja: 180, // Africa/Nairobi
  momo: 0, // the MoMo sandbox answers in UTC
  airtel: 180, // Africa/Kampala
};

export class Books {
  private readonly entries: BookEntry[] = [];
  private readonly balances = new Map<string, number>();
  private faultsInForce: BooksFaults = {};
  private pullFailuresLeft: number | undefined;

  get faults(): BooksFaults {
    return { ...this.faultsInForce };
  }

  setFaults(faults: BooksFaults): void {
    this.faultsInForce = { ...faults };
    this.pullFailuresLeft = typeof faults.pullFailure === 'number' ? faults.pullFailure : undefined;
  }

  /** Whether this pull query must fail inside a 200 (counts the budget down). */
  takePullFailure(): boolean {
    const f = this.faultsInForce.pullFailure;
    if (f === undefined) return false;
    if (f === true) return true;
    if (!this.pullFailuresLeft) return false;
    this.pullFailuresLeft--;
    return true;
  }

  reset(): void {
    this.entries.length = 0;
    this.balances.clear();
    this.faultsInForce = {};
    this.pullFailuresLeft = undefined;
  }

  private key(provider: string, account: string, subAccount?: string) {
    return `${provider}/${account}/${subAccount ?? ''}`;
  }

  /** The balance books of a (sub-)account start at `opening` the first time it is seen. */
  balanceOf(provider: ProviderName, account: string, subAccount?: string, opening = 0): number {
    return this.balances.get(this.key(provider, account, subAccount)) ?? opening;
  }

  /**
   * Records a completed movement (and its fee, under the `feePercent` fault). `opening`: the account's
   * balance before its first movement, the provider's own starting balance.
   */
  record(entry: Omit<BookEntry, 'balance'>, opening = 0): BookEntry[] {
    const key = this.key(entry.provider, entry.account, entry.subAccount);
    const before = this.balances.get(key) ?? opening;
    const after = round2(before + entry.amountIn - entry.amountOut);
    const booked: BookEntry[] = [{ ...entry, balance: after }];
    this.entries.push(booked[0]!);
    this.balances.set(key, after);
    const percent = this.faultsInForce.feePercent;
    if (percent && entry.kind === 'payment' && entry.amountIn > 0) {
      const fee = round2((entry.amountIn * percent) / 100);
      const feeBalance = round2(after - fee);
      booked.push({
        ...entry,
        id: `${entry.id}F`,
        kind: 'fee',
        amountIn: 0,
        amountOut: fee,
        linkedId: entry.id,
        description: entry.provider === 'daraja' ? 'Pay merchant Charge' : 'Fee',
        pullType: undefined,
        balance: feeBalance,
      });
      this.entries.push(booked[1]!);
      this.balances.set(key, feeBalance);
    }
    return booked;
  }

  /** Every entry of the books, as moved (no fault applied): the truth a reconciliation is checked against. */
  all(provider?: ProviderName, account?: string): BookEntry[] {
    return this.entries.filter(
      (e) => (!provider || e.provider === provider) && (!account || e.account === account),
    );
  }

  /**
   * The rows as the provider serves them (statements, pulls): faults applied per account, counted in the
   * order the money moved, so the Nth row is the same in every view. Fee rows are never dropped or moved
   * (they belong to their payment).
   */
  served(provider: ProviderName, account: string, subAccount?: string): ServedEntry[] {
    const f = this.faultsInForce;
    const out: ServedEntry[] = [];
    let n = 0;
    for (const e of this.entries) {
      if (e.provider !== provider || e.account !== account) continue;
      if (subAccount !== undefined && e.subAccount !== subAccount) continue;
      if (e.kind === 'fee') {
        out.push({ ...e, fault: 'fee' });
        continue;
      }
      n++;
      if (f.missingEvery && n % f.missingEvery === 0) continue;
      const row: ServedEntry = { ...e };
      if (f.lateEvery && n % f.lateEvery === 0) {
        row.time = nextMidnight(e.time, PROVIDER_UTC_OFFSET_MINUTES[provider]) + 90_000;
        row.fault = 'late';
      }
      out.push(row);
      if (f.duplicateEvery && n % f.duplicateEvery === 0) out.push({ ...row, fault: 'duplicate' });
    }
    return out.sort((a, b) => a.time - b.time);
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The next local midnight after `ms` (epoch ms), for a zone `offsetMinutes` east of UTC. */
function nextMidnight(ms: number, offsetMinutes: number): number {
  const local = ms + offsetMinutes * 60_000;
  const day = Math.floor(local / 86_400_000) + 1;
  return day * 86_400_000 - offsetMinutes * 60_000;
}

/** `YYYY-MM-DD HH:mm:ss` (or another joiner) of `ms` in a zone `offsetMinutes` east of UTC. */
export function localTime(ms: number, offsetMinutes: number, sep = ' '): string {
  const d = new Date(ms + offsetMinutes * 60_000);
  const p = (x: number) => String(x).padStart(2, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}${sep}${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

/** Statements show numbers masked as the portals do: `2547****149`. */
export function maskNumber(value: string): string {
  return /^\d{9,15}$/.test(value) ? `${value.slice(0, 4)}****${value.slice(-3)}` : value;
}
