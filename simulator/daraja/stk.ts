/** STK push (payment prompt) and its query (Daraja API docs). */
import * as z from 'zod';
import { effectiveCallbackFaults, FaultHolder } from '../core/faults';
import { json, type Reply, type RequestContext } from '../core/http';
import { darajaTimestamp, digits, receipt } from '../core/ids';
import { maskMsisdn } from '../core/log';
import type { Router } from '../core/router';
import { applyStatusFaults } from '../core/status-faults';
import type { DarajaCore } from './core';
import { darajaErrors } from './errors';
import { STK_STALE, type StkOutcome, stkOutcome } from './outcomes';
import { digitsOf, HttpUrl, Msisdn254, WholeAmount } from './schema';

const ShortCode = digitsOf(/^\d{5,6}$/);
const Timestamp = z.string().regex(/^\d{14}$/);

const StkPushBody = z.object({
  BusinessShortCode: ShortCode,
  Password: z.string().min(1),
  Timestamp,
  TransactionType: z.enum(['CustomerPayBillOnline', 'CustomerBuyGoodsOnline']),
  Amount: WholeAmount,
  PartyA: Msisdn254,
  PartyB: ShortCode,
  PhoneNumber: Msisdn254,
  CallBackURL: HttpUrl,
  AccountReference: z.string().min(1).max(12),
  TransactionDesc: z.string().min(1).max(13),
});

const StkQueryBody = z.object({
  BusinessShortCode: ShortCode,
  Password: z.string().min(1),
  Timestamp,
  CheckoutRequestID: z.string().min(1),
});

interface StkTransaction {
  merchantRequestId: string;
  checkoutRequestId: string;
  shortCode: string;
  phoneNumber: string;
  amount: number;
  callbackUrl: string;
  outcome: StkOutcome;
  done: boolean;
  receipt?: string;
  faults: FaultHolder;
  createdAt: number;
}

export function stkPassword(shortCode: string, passkey: string, timestamp: string): string {
  return Buffer.from(`${shortCode}${passkey}${timestamp}`).toString('base64');
}

/** `ws_CO_191220191020363925`: ddMMyyyyHHmm plus digits, as in the fixtures. */
function checkoutRequestId(): string {
  const t = darajaTimestamp();
  return `ws_CO_${t.slice(6, 8)}${t.slice(4, 6)}${t.slice(0, 4)}${t.slice(8, 12)}${digits(6)}`;
}

export function registerStk(
  core: DarajaCore,
  router: Router,
  prefixes: string[],
): { snapshot(): unknown[]; reset(): void } {
  const { sim } = core;
  const transactions = new Map<string, StkTransaction>();

  function checkPassword(shortCode: string, password: string, timestamp: string, onWrong: () => Error): void {
    const passkey = sim.opts.daraja.passkeys[shortCode];
    if (passkey === undefined) throw darajaErrors.merchantUnknown();
    if (password !== stkPassword(shortCode, passkey, timestamp)) throw onWrong();
  }

  function push(ctx: RequestContext): Reply {
    core.authenticate(ctx);
    const b = core.body(ctx, StkPushBody);
    checkPassword(b.BusinessShortCode, b.Password, b.Timestamp, () => darajaErrors.invalidField('Password'));
    const txn: StkTransaction = {
      merchantRequestId: `${digits(5)}-${digits(8)}-1`,
      checkoutRequestId: checkoutRequestId(),
      shortCode: b.BusinessShortCode,
      phoneNumber: b.PhoneNumber,
      amount: b.Amount,
      callbackUrl: b.CallBackURL,
      outcome: stkOutcome(b.PhoneNumber),
      done: false,
      faults: new FaultHolder(ctx.faults),
      createdAt: core.now(),
    };
    transactions.set(txn.checkoutRequestId, txn);
    sim.later(sim.opts.approvalDelayMs, () => complete(txn));
    return json(200, {
      MerchantRequestID: txn.merchantRequestId,
      CheckoutRequestID: txn.checkoutRequestId,
      ResponseCode: '0',
      ResponseDescription: 'Success. Request accepted for processing',
      CustomerMessage: 'Success. Request accepted for processing',
    });
  }

  function callbackBody(txn: StkTransaction, outcome: StkOutcome): string {
    const stkCallback: Record<string, unknown> = {
      MerchantRequestID: txn.merchantRequestId,
      CheckoutRequestID: txn.checkoutRequestId,
      ResultCode: outcome.resultCode,
      ResultDesc: outcome.resultDesc,
    };
    if (outcome.resultCode === 0 && txn.receipt) {
      stkCallback.CallbackMetadata = {
        Item: [
          { Name: 'Amount', Value: txn.amount },
          { Name: 'MpesaReceiptNumber', Value: txn.receipt },
          // The platform sends Balance without a Value.
          { Name: 'Balance' },
          { Name: 'TransactionDate', Value: Number(darajaTimestamp(new Date(core.now()))) },
          { Name: 'PhoneNumber', Value: Number(txn.phoneNumber) },
        ],
      };
    }
    return JSON.stringify({ Body: { stkCallback } });
  }

  async function complete(txn: StkTransaction): Promise<void> {
    txn.done = true;
    if (txn.outcome.resultCode === 0) {
      txn.receipt = receipt(10);
      core.adjustBalance(txn.shortCode, txn.amount);
      const now = new Date(core.now());
      core.records.set(txn.receipt, {
        type: 'stk',
        receipt: txn.receipt,
        amount: txn.amount,
        shortCode: txn.shortCode,
        debitPartyName: `${txn.phoneNumber} - John Doe`,
        creditPartyName: `${txn.shortCode} - Sim Merchant`,
        status: 'Completed',
        reasonType: 'Pay Bill Online',
        initiatedAt: new Date(txn.createdAt),
        finalisedAt: now,
      });
    }
    const base = {
      provider: 'daraja' as const,
      kind: 'stk',
      reference: txn.checkoutRequestId,
      url: txn.callbackUrl,
      method: 'POST' as const,
      sourceIp: core.sourceIp,
    };
    await sim.sender.deliver(
      {
        ...base,
        body: callbackBody(txn, txn.outcome),
        summary: `${txn.checkoutRequestId} ResultCode ${txn.outcome.resultCode}`,
      },
      effectiveCallbackFaults(sim.faults, 'daraja', txn.faults),
      {
        ...base,
        body: callbackBody(txn, STK_STALE),
        summary: `${txn.checkoutRequestId} ResultCode 1037 (stale)`,
      },
    );
  }

  async function query(ctx: RequestContext): Promise<Reply> {
    core.authenticate(ctx);
    const b = core.body(ctx, StkQueryBody);
    checkPassword(b.BusinessShortCode, b.Password, b.Timestamp, () => darajaErrors.wrongCredentials());
    const txn = transactions.get(b.CheckoutRequestID);
    const fault = await applyStatusFaults(sim, 'daraja', ctx, txn?.faults);
    if (fault) throw darajaErrors.internal(fault);
    if (!txn) throw darajaErrors.invalidField('CheckoutRequestID');
    if (!txn.done) throw darajaErrors.beingProcessed();
    return json(200, {
      ResponseCode: '0',
      // Sic: the platform's spelling.
      ResponseDescription: 'The service request has been accepted successsfully',
      MerchantRequestID: txn.merchantRequestId,
      CheckoutRequestID: txn.checkoutRequestId,
      // The query answers the code as a string, unlike the callback.
      ResultCode: String(txn.outcome.resultCode),
      ResultDesc: txn.outcome.resultDesc,
    });
  }

  for (const p of prefixes) {
    router.add('daraja', 'POST', `${p}/stkpush/v1/processrequest`, push);
    router.add('daraja', 'POST', `${p}/stkpushquery/v1/query`, query, { statusCall: true });
  }

  return {
    snapshot: () =>
      [...transactions.values()].map((t) => ({
        provider: 'daraja',
        kind: 'stk',
        reference: t.checkoutRequestId,
        merchantRequestId: t.merchantRequestId,
        status: t.done ? 'COMPLETED' : 'PENDING',
        resultCode: t.done ? t.outcome.resultCode : undefined,
        receipt: t.receipt,
        msisdn: maskMsisdn(t.phoneNumber),
        amount: t.amount,
        createdAt: new Date(t.createdAt).toISOString(),
      })),
    reset: () => transactions.clear(),
  };
}
