import type { z } from 'zod';
import type { SimContext } from '../core/context';
import { FaultHolder, refusedBy } from '../core/faults';
import { json, type Reply, type RequestContext } from '../core/http';
import { opaqueToken, TokenStore } from '../core/tokens';
import { darajaErrors } from './errors';
import { DarajaThrottle } from './throttle';

/** A completed (or declined) money movement that the transaction status query can report on. */
export interface DarajaRecord {
  /** `reversal`: a completed reversal (DarajaCore.reversals), under its own receipt. */
  type: 'stk' | 'c2b' | 'b2c' | 'b2b' | 'reversal';
  receipt: string;
  originatorConversationId?: string;
  conversationId?: string;
  amount: number;
  shortCode: string;
  /** B2B: the receiving short code, whose tracked balance the payment also moved. */
  counterpartShortCode?: string;
  /** `254708374149 - John Doe`-style party names, as in the status result. */
  debitPartyName: string;
  creditPartyName: string;
  status: 'Completed' | 'Declined';
  reasonType: string;
  initiatedAt: Date;
  finalisedAt: Date;
  /** C2B BillRefNumber: the partner's reference, on statements and pull rows. */
  billRef?: string;
}

/** Daraja's short codes start with this balance (the Account Balance answer's Utility Account). */
const DARAJA_OPENING_BALANCE = 50_000;

/**
 * The platform's records of completed movements: every record set as Completed is also booked
 * (simulator/core/books.ts), once, so statements and the pull API list exactly the money that moved.
 */
class BookedRecords extends Map<string, DarajaRecord> {
  constructor(private readonly core: DarajaCore) {
    super();
  }

  override set(id: string, record: DarajaRecord): this {
    const first = !this.has(id);
    super.set(id, record);
    if (first && record.status === 'Completed') this.core.book(record);
    return this;
  }
}

/** State and helpers shared by the Daraja operations. */
export class DarajaCore {
  readonly tokens = new TokenStore<Record<string, never>>(() => this.sim.scheduler.now());
  readonly records: Map<string, DarajaRecord> = new BookedRecords(this);
  /**
   * Completed reversals by their own receipt: the transaction status query reports on them too (its
   * documentation lists reversals among what it checks). Booked by bookReversal, not by this map.
   */
  readonly reversals = new Map<string, DarajaRecord>();
  private readonly balances = new Map<string, number>();
  /** Short codes registered for the Pull Transactions API (NominatedNumber, CallBackURL). */
  readonly pullRegistrations = new Map<string, { nominatedNumber: string; callbackUrl: string }>();
  private readonly throttle = new DarajaThrottle();

  constructor(readonly sim: SimContext) {}

  /**
   * The simulator's time (epoch ms), by which operations and movements are dated and balances read: its
   * clock, as MoMo's, so a test's ManualClock decides it.
   */
  now(): number {
    return this.sim.scheduler.now();
  }

  reset(): void {
    this.records.clear();
    this.reversals.clear();
    this.pullRegistrations.clear();
    this.balances.clear();
    this.throttle.reset();
  }

  /**
   * The platform's gateway in front of every operation, token generation included (its policies sit in
   * front of every proxy): injected refusals first, then spike arrest and quota. It runs before the token
   * is checked, so a refused call says nothing about the caller's credentials.
   */
  admit(ctx: RequestContext): void {
    const holders = [
      Object.keys(ctx.faults).length ? new FaultHolder(ctx.faults) : undefined,
      ...this.sim.faults.holdersFor('daraja'),
    ];
    const { throttleHttpStatus, quotaPerSecond, spikeArrestPerSecond } = this.sim.opts.daraja;
    if (refusedBy(holders, 'spike')) throw darajaErrors.spikeArrest(throttleHttpStatus, 1);
    if (refusedBy(holders, 'quota')) throw darajaErrors.quotaViolation(throttleHttpStatus, 1);
    if (refusedBy(holders, 'internalError')) throw darajaErrors.internal(500);
    const verdict = this.throttle.check(Date.now(), { quotaPerSecond, spikeArrestPerSecond });
    if (verdict.admitted) return;
    throw verdict.rule === 'spike'
      ? darajaErrors.spikeArrest(throttleHttpStatus, verdict.retryAfterSeconds)
      : darajaErrors.quotaViolation(throttleHttpStatus, verdict.retryAfterSeconds);
  }

  generateToken(ctx: RequestContext): Reply {
    this.admit(ctx);
    const creds = ctx.basicCredentials();
    const { consumerKey, consumerSecret, tokenTtlSeconds } = this.sim.opts.daraja;
    if (!creds || creds.user !== consumerKey || creds.password !== consumerSecret)
      throw darajaErrors.badCredentials();
    if (ctx.query.get('grant_type') !== 'client_credentials') throw darajaErrors.badGrantType();
    const token = opaqueToken(28);
    const holders = [
      Object.keys(ctx.faults).length ? new FaultHolder(ctx.faults) : undefined,
      ...this.sim.faults.holdersFor('daraja'),
    ];
    this.tokens.issue(token, {}, tokenTtlSeconds * 1000, holders);
    // `expires_in` is a string ("3599") on the platform.
    return json(200, { access_token: token, expires_in: String(tokenTtlSeconds) });
  }

  /** Every operation but token generation starts here, so the gateway checks run first for all of them. */
  authenticate(ctx: RequestContext): void {
    this.admit(ctx);
    const token = ctx.bearerToken();
    if (ctx.faults.tokenExpireEarlyMs !== undefined) this.tokens.expire(token);
    if (!this.tokens.lookup(token).ok) throw darajaErrors.invalidToken();
  }

  /** Parses and validates a JSON body; the first failing field names the error, as the platform does. */
  body<T>(ctx: RequestContext, schema: z.ZodType<T>): T {
    const raw = ctx.json(() => darajaErrors.invalidPayload());
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw darajaErrors.invalidPayload();
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const field = parsed.error.issues[0]?.path[0];
      throw darajaErrors.invalidField(typeof field === 'string' ? field : 'request');
    }
    return parsed.data;
  }

  balanceOf(shortCode: string): number {
    return this.balances.get(shortCode) ?? DARAJA_OPENING_BALANCE;
  }

  /**
   * Books a completed movement: money into the short code (STK, C2B) or out of it (B2C, B2B, and into
   * the B2B receiver). A fee the books charge (the fee fault) leaves the tracked balance too, so the
   * Account Balance answer and the statements agree.
   */
  book(record: DarajaRecord): void {
    const party = (name: string) => name.split(' - ')[0] ?? name;
    const into = record.type === 'stk' || record.type === 'c2b';
    const base = {
      provider: 'daraja' as const,
      id: record.receipt,
      time: record.finalisedAt.getTime(),
      currency: 'KES',
      ...(record.billRef ? { externalId: record.billRef } : {}),
    };
    const booked = this.sim.books.record(
      {
        ...base,
        account: record.shortCode,
        kind: into ? 'payment' : 'payout',
        amountIn: into ? record.amount : 0,
        amountOut: into ? 0 : record.amount,
        counterparty: party(into ? record.debitPartyName : record.creditPartyName),
        description: record.reasonType,
        ...(into
          ? { pullType: record.reasonType === 'Buy Goods' ? 'c2b-buy-goods-debit' : 'c2b-pay-bill-debit' }
          : {}),
      },
      // The books start where the platform's balance stood before this movement.
      this.balanceOf(record.shortCode) - (into ? record.amount : -record.amount),
    );
    for (const fee of booked.slice(1)) this.adjustBalance(record.shortCode, -fee.amountOut);
    if (record.counterpartShortCode)
      this.sim.books.record(
        {
          ...base,
          account: record.counterpartShortCode,
          kind: 'payment',
          amountIn: record.amount,
          amountOut: 0,
          counterparty: record.shortCode,
          description: 'Business Payment from Business',
        },
        this.balanceOf(record.counterpartShortCode) - record.amount,
      );
  }

  /** Books a reversal of `original` (money back the other way), under its own receipt. */
  bookReversal(original: DarajaRecord, amount: number, receipt: string): void {
    const paidOut = original.type === 'b2c' || original.type === 'b2b';
    const party = (name: string) => name.split(' - ')[0] ?? name;
    this.sim.books.record(
      {
        provider: 'daraja',
        account: original.shortCode,
        id: receipt,
        time: this.now(),
        kind: 'reversal',
        amountIn: paidOut ? amount : 0,
        amountOut: paidOut ? 0 : amount,
        counterparty: party(paidOut ? original.creditPartyName : original.debitPartyName),
        linkedId: original.receipt,
        description: 'Reversal',
        currency: 'KES',
      },
      this.balanceOf(original.shortCode) - (paidOut ? amount : -amount),
    );
  }

  /**
   * The short code's balance as it stood just before `ms` (epoch ms): the movements the books dated at or
   * after it taken back out.
   */
  balanceBefore(shortCode: string, ms: number): number {
    const later = this.sim.books
      .all('daraja', shortCode)
      .filter((e) => e.time >= ms)
      .reduce((sum, e) => sum + e.amountIn - e.amountOut, 0);
    return Math.round((this.balanceOf(shortCode) - later) * 100) / 100;
  }

  adjustBalance(shortCode: string, delta: number): number {
    const next = this.balanceOf(shortCode) + delta;
    this.balances.set(shortCode, next);
    return next;
  }

  get sourceIp(): string {
    return this.sim.opts.daraja.callbackSourceIp;
  }
}
