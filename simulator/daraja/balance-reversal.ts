/**
 * Account balance (`accountbalance/v1/query`) and reversal (`reversal/v1/request`), both answered
 * synchronously and then through ResultURL (or QueueTimeOutURL), like B2C. The
 * paths, fields and result shapes follow Daraja's Account Balance and Reversal documentation as the community clients
 * (`mpesa-node`, `mpesa-api`) call it, and the neutral `/wallet/...` prefix is served too.
 */
import * as z from 'zod';
import { effectiveCallbackFaults, FaultHolder, type FaultSet } from '../core/faults';
import { json, type Reply, type RequestContext } from '../core/http';
import { darajaTimestamp, digits, hex, receipt } from '../core/ids';
import type { Router } from '../core/router';
import type { DarajaCore, DarajaRecord } from './core';
import { darajaCallbackBase, echoedRequest, noticeOf, startQueueTimeout } from './queue-timeout';
import { digitsOf, HttpUrl, WholeAmount } from './schema';

/** Short code (5 to 9 digits) or a 2547… MSISDN, as the status query accepts. */
const Party = digitsOf(/^(\d{5,9}|254\d{9})$/);
const IdentifierType = digitsOf(/^\d{1,2}$/);

const BalanceBody = z.object({
  Initiator: z.string().min(1),
  SecurityCredential: z.string().min(1),
  CommandID: z.literal('AccountBalance'),
  PartyA: Party,
  IdentifierType,
  Remarks: z.string().min(1).max(100),
  QueueTimeOutURL: HttpUrl,
  ResultURL: HttpUrl,
});

/**
 * Daraja's own field is `RecieverIdentifierType` (sic); the correct spelling is accepted too, and one of
 * the two is required (reported under Daraja's spelling when both are missing).
 */
const ReversalBody = z
  .object({
    Initiator: z.string().min(1),
    SecurityCredential: z.string().min(1),
    CommandID: z.literal('TransactionReversal'),
    TransactionID: z.string().min(1),
    Amount: WholeAmount,
    ReceiverParty: Party,
    RecieverIdentifierType: IdentifierType.optional(),
    ReceiverIdentifierType: IdentifierType.optional(),
    ResultURL: HttpUrl,
    QueueTimeOutURL: HttpUrl,
    Remarks: z.string().min(1).max(100),
    Occasion: z.string().max(100).optional(),
  })
  .refine((b) => b.RecieverIdentifierType !== undefined || b.ReceiverIdentifierType !== undefined, {
    path: ['RecieverIdentifierType'],
  });

/** Party suffixes that pick an outcome, as the B2C `PartyB` suffixes do. */
const BALANCE_REVERSAL_TRIGGERS = {
  /** PartyA / ReceiverParty ending in 2001: ResultCode 2001, as B2C. */
  initiatorInvalid: '2001',
  /** PartyA / ReceiverParty ending in 0408: queue-timeout notice, no result (as B2C). */
  queueTimeout: '0408',
} as const;

const INITIATOR_INVALID = { code: 2001, desc: 'The initiator information is invalid.' } as const;
/** The status query's `ReasonType` of a reversal (descriptive: Daraja documents no list). */
const REVERSAL_REASON_TYPE = 'Reversal of a transaction via API';

/** Daraja's reversal codes (Daraja's Reversal documentation). */
const REVERSAL_ALREADY_REVERSED = {
  code: 'R000001',
  desc: 'The transaction has already been reversed.',
} as const;
const REVERSAL_INVALID_ORIGINAL = {
  code: 'R000002',
  desc: 'The OriginalTransID is invalid.',
} as const;

/** The fixed accounts of the balance string other than the Utility Account, which tracks the short code. */
const WORKING = 481000;
const CHARGES_PAID = -1540;

const money = (n: number) => n.toFixed(2);
/** The whole second (epoch ms) `ms` falls in. */
const secondOf = (ms: number) => Math.floor(ms / 1000) * 1000;
const account = (name: string, amount: number) => `${name}|KES|${money(amount)}|${money(amount)}|0.00|0.00`;

/** Daraja's `AccountBalance` value: accounts joined by `&`, each `name|currency|amount|available|reserved|uncleared`. */
function accountBalanceString(utility: number): string {
  return [
    account('Working Account', WORKING),
    account('Float Account', 0),
    account('Utility Account', utility),
    account('Charges Paid Account', CHARGES_PAID),
    account('Organization Settlement Account', 0),
  ].join('&');
}

interface Operation {
  kind: 'balance' | 'reversal';
  originatorConversationId: string;
  conversationId: string;
  request: Record<string, unknown>;
  party: string;
  resultUrl: string;
  queueTimeOutUrl: string;
  state: 'pending' | 'completed' | 'failed' | 'timed-out';
  transactionId?: string;
  /** Reversal only. */
  original?: string;
  amount?: number;
  faults: FaultHolder;
  createdAt: number;
}

const conversationId = () => `AG_${darajaTimestamp().slice(0, 8)}_${hex(10)}`;
const originatorConversationId = () => `${digits(5)}-${digits(8)}-1`;

export function registerBalanceReversal(
  core: DarajaCore,
  router: Router,
  prefixes: string[],
): { snapshot(): unknown[]; reset(): void } {
  const { sim } = core;
  const operations = new Map<string, Operation>();
  /** Receipts already reversed: a second reversal of one answers R000001. */
  const reversed = new Set<string>();

  const base = (kind: string, reference: string, url: string) =>
    darajaCallbackBase(core, kind, reference, url);

  /** As B2C: the notice after `queueTimeoutAfterMs`, then the real result only with a late-result setting. */
  const queueTimeout = (op: Operation, faults: FaultSet, forced: boolean) =>
    startQueueTimeout(
      core,
      faults,
      forced,
      (shape) => ({
        kind: `${op.kind}-timeout`,
        reference: op.originatorConversationId,
        url: op.queueTimeOutUrl,
        body: noticeOf(shape, op),
      }),
      () => sendResult(op, true),
      () => {
        op.state = 'timed-out';
      },
    );

  function accept(op: Operation): Reply {
    operations.set(op.originatorConversationId, op);
    const faults = effectiveCallbackFaults(sim.faults, 'daraja', op.faults);
    const forced = op.party.endsWith(BALANCE_REVERSAL_TRIGGERS.queueTimeout);
    // A balance is answered once the second it names has ended (decide): never sooner.
    const wait =
      op.kind === 'balance'
        ? Math.max(sim.opts.approvalDelayMs, secondOf(op.createdAt) + 1000 - core.now())
        : sim.opts.approvalDelayMs;
    if (!queueTimeout(op, faults, forced)) sim.later(wait, () => sendResult(op, false));
    return json(200, {
      OriginatorConversationID: op.originatorConversationId,
      ConversationID: op.conversationId,
      ResponseCode: '0',
      ResponseDescription: 'Accept the service request successfully.',
    });
  }

  function newOperation(
    ctx: RequestContext,
    kind: Operation['kind'],
    party: string,
    urls: { ResultURL: string; QueueTimeOutURL: string },
  ): Operation {
    const oc = originatorConversationId();
    return {
      kind,
      originatorConversationId: oc,
      conversationId: conversationId(),
      request: echoedRequest(ctx, oc),
      party,
      resultUrl: urls.ResultURL,
      queueTimeOutUrl: urls.QueueTimeOutURL,
      state: 'pending',
      faults: new FaultHolder(ctx.faults),
      createdAt: core.now(),
    };
  }

  function balance(ctx: RequestContext): Reply {
    core.authenticate(ctx);
    const b = core.body(ctx, BalanceBody);
    return accept(newOperation(ctx, 'balance', b.PartyA, b));
  }

  function reversal(ctx: RequestContext): Reply {
    core.authenticate(ctx);
    const b = core.body(ctx, ReversalBody);
    const op = newOperation(ctx, 'reversal', b.ReceiverParty, b);
    op.original = b.TransactionID;
    op.amount = b.Amount;
    return accept(op);
  }

  type Outcome =
    | { ok: true; params: { Key: string; Value?: unknown }[]; record?: DarajaRecord }
    | { ok: false; code: number | string; desc: string };

  function decide(op: Operation): Outcome {
    if (op.party.endsWith(BALANCE_REVERSAL_TRIGGERS.initiatorInvalid))
      return { ok: false, code: INITIATOR_INVALID.code, desc: INITIATOR_INVALID.desc };
    if (op.kind === 'balance') {
      // BOCompletedTime names a whole second (the request's): the balance is the one at that second's
      // end, every movement dated in it in and none after (the answer leaves once it has ended). Read
      // at any instant under the truncated time, it held movements of the same second dated after the
      // instant it named, and a reconciliation that counts each movement by its time put them in the
      // next interval: a drift nothing explains.
      const second = secondOf(op.createdAt);
      return {
        ok: true,
        params: [
          {
            Key: 'AccountBalance',
            Value: accountBalanceString(core.balanceBefore(op.party, second + 1000)),
          },
          { Key: 'BOCompletedTime', Value: Number(darajaTimestamp(new Date(second))) },
        ],
      };
    }
    const record = op.original ? core.records.get(op.original) : undefined;
    if (!record || record.status !== 'Completed')
      return { ok: false, code: REVERSAL_INVALID_ORIGINAL.code, desc: REVERSAL_INVALID_ORIGINAL.desc };
    if (reversed.has(record.receipt))
      return { ok: false, code: REVERSAL_ALREADY_REVERSED.code, desc: REVERSAL_ALREADY_REVERSED.desc };
    return { ok: true, params: [], record };
  }

  async function sendResult(op: Operation, late: boolean): Promise<void> {
    const outcome = decide(op);
    const result: Record<string, unknown> = {
      ResultType: 0,
      ResultCode: outcome.ok ? 0 : outcome.code,
      ResultDesc: outcome.ok ? 'The service request is processed successfully.' : outcome.desc,
      OriginatorConversationID: op.originatorConversationId,
      ConversationID: op.conversationId,
      TransactionID: '',
    };
    if (outcome.ok) {
      op.transactionId = receipt(10);
      op.state = 'completed';
      result.TransactionID = op.transactionId;
      let params = outcome.params;
      if (op.kind === 'reversal' && outcome.record) {
        const r = outcome.record;
        reversed.add(r.receipt);
        // The money goes back: a payout (B2C, B2B) returns to the short code that sent it (and leaves the
        // business that got it), a payment in leaves the short code again.
        const amount = op.amount ?? r.amount;
        const paidOut = r.type === 'b2c' || r.type === 'b2b';
        const left = core.adjustBalance(r.shortCode, paidOut ? amount : -amount);
        if (r.counterpartShortCode) core.adjustBalance(r.counterpartShortCode, -amount);
        core.bookReversal(r, amount, op.transactionId);
        // The money moves back: the original's credit party pays, its debit party is paid.
        core.reversals.set(op.transactionId, {
          type: 'reversal',
          receipt: op.transactionId,
          originatorConversationId: op.originatorConversationId,
          conversationId: op.conversationId,
          amount,
          shortCode: r.shortCode,
          debitPartyName: r.creditPartyName,
          creditPartyName: r.debitPartyName,
          status: 'Completed',
          reasonType: REVERSAL_REASON_TYPE,
          initiatedAt: new Date(op.createdAt),
          finalisedAt: new Date(core.now()),
        });
        params = [
          {
            Key: 'DebitAccountBalance',
            Value: `Utility Account|KES|${money(left)}|${money(left)}|0.00|0.00`,
          },
          { Key: 'Amount', Value: amount },
          { Key: 'TransCompletedTime', Value: Number(darajaTimestamp(new Date(core.now()))) },
          { Key: 'OriginalTransactionID', Value: r.receipt },
          { Key: 'Charge', Value: 0 },
          // The original movement runs backwards: its credit party pays, its debit party is paid.
          { Key: 'CreditPartyPublicName', Value: r.debitPartyName },
          { Key: 'DebitPartyPublicName', Value: r.creditPartyName },
        ];
      }
      result.ResultParameters = { ResultParameter: params };
    } else {
      op.state = 'failed';
      result.TransactionID = `${receipt(3)}0000000`;
    }
    // As the status query's result does (b2c.ts), a reversal's Occasion comes back in ReferenceData.
    const occasion = op.kind === 'reversal' ? op.request.Occasion : undefined;
    result.ReferenceData = {
      ReferenceItem:
        typeof occasion === 'string' && occasion
          ? [
              { Key: 'QueueTimeoutURL', Value: op.queueTimeOutUrl },
              { Key: 'Occasion', Value: occasion },
            ]
          : { Key: 'QueueTimeoutURL', Value: op.queueTimeOutUrl },
    };
    const faults = effectiveCallbackFaults(sim.faults, 'daraja', op.faults);
    await sim.sender.deliver(
      {
        ...base(`${op.kind}-result`, op.originatorConversationId, op.resultUrl),
        body: JSON.stringify({ Result: result }),
        summary: `${op.originatorConversationId} ResultCode ${String(result.ResultCode)}${late ? ' (late)' : ''}`,
      },
      late ? { ...faults, queueTimeout: undefined } : faults,
      {
        ...base(`${op.kind}-timeout`, op.originatorConversationId, op.queueTimeOutUrl),
        body: noticeOf(sim.opts.daraja.queueTimeoutShape, op),
        summary: `${op.originatorConversationId} queue timeout (stale)`,
      },
    );
  }

  for (const p of prefixes) {
    router.add('daraja', 'POST', `${p}/accountbalance/v1/query`, balance);
    router.add('daraja', 'POST', `${p}/reversal/v1/request`, reversal);
  }

  return {
    snapshot: () =>
      [...operations.values()].map((o) => ({
        provider: 'daraja',
        kind: o.kind,
        reference: o.originatorConversationId,
        conversationId: o.conversationId,
        status: o.state,
        transactionId: o.transactionId,
        ...(o.kind === 'reversal' ? { originalTransactionId: o.original, amount: o.amount } : {}),
        createdAt: new Date(o.createdAt).toISOString(),
      })),
    reset: () => {
      operations.clear();
      reversed.clear();
    },
  };
}
