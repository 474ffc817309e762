import type { z } from 'zod';
import type { SimContext } from '../core/context';
import { FaultHolder, refusedBy } from '../core/faults';
import { json, type Reply, type RequestContext } from '../core/http';
import { opaqueToken, TokenStore } from '../core/tokens';
import { darajaErrors } from './errors';
import { DarajaThrottle } from './throttle';

/** A completed (or declined) money movement that the transaction status query can report on. */
export interface DarajaRecord {
  type: 'stk' | 'c2b' | 'b2c' | 'b2b';
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
}

/** State and helpers shared by the Daraja operations. */
export class DarajaCore {
  readonly tokens = new TokenStore<Record<string, never>>(() => this.sim.scheduler.now());
  readonly records = new Map<string, DarajaRecord>();
  private readonly balances = new Map<string, number>();
  private readonly throttle = new DarajaThrottle();

  constructor(readonly sim: SimContext) {}

  reset(): void {
    this.records.clear();
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
    return this.balances.get(shortCode) ?? 50_000;
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
