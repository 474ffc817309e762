/**
 * B2B payment request (`b2b/v1/paymentrequest`): accepted synchronously, then answered through ResultURL
 * (or QueueTimeOutURL) like B2C. The fields and the result shape follow Daraja's B2B
 * documentation as the community clients (`mpesa-node`) call it, under `/mpesa` and `/wallet`.
 */
import * as z from 'zod';
import { effectiveCallbackFaults, FaultHolder } from '../core/faults';
import { json, type Reply, type RequestContext } from '../core/http';
import { darajaTimestamp, digits, hex, receipt } from '../core/ids';
import type { Router } from '../core/router';
import type { DarajaCore } from './core';
import { type B2cOutcome, b2cOutcome } from './outcomes';
import { darajaCallbackBase, echoedRequest, noticeOf, resultHead, startQueueTimeout } from './queue-timeout';
import { digitsOf, HttpUrl, Msisdn254, WholeAmount } from './schema';

const B2B_COMMANDS = [
  'BusinessPayBill',
  'BusinessBuyGoods',
  'DisburseFundsToBusiness',
  'BusinessToBusinessTransfer',
  'MerchantToMerchantTransfer',
] as const;
type B2bCommand = (typeof B2B_COMMANDS)[number];

/** The status query's `ReasonType` for each command (descriptive: Daraja documents no list). */
const REASON_TYPE: Record<B2bCommand, string> = {
  BusinessPayBill: 'Business Pay Bill via API',
  BusinessBuyGoods: 'Business Buy Goods via API',
  DisburseFundsToBusiness: 'Disburse Funds to Business via API',
  BusinessToBusinessTransfer: 'Business to Business Transfer via API',
  MerchantToMerchantTransfer: 'Merchant to Merchant Transfer via API',
};

const ShortCode = digitsOf(/^\d{5,9}$/);
const IdentifierType = digitsOf(/^\d{1,2}$/);
/** Account numbers are often all digits and some clients send them as JSON numbers. */
const AccountReference = z.union([z.string(), z.number()]).transform(String).pipe(z.string().max(13));

/**
 * Daraja's own field is `RecieverIdentifierType` (sic); the correct spelling is accepted too, as the
 * reversal does. `mpesa-node` sends `AccountReference: null` when none is given, so null is "absent".
 */
const B2bBody = z
  .object({
    Initiator: z.string().min(1),
    SecurityCredential: z.string().min(1),
    CommandID: z.enum(B2B_COMMANDS),
    SenderIdentifierType: IdentifierType,
    RecieverIdentifierType: IdentifierType.optional(),
    ReceiverIdentifierType: IdentifierType.optional(),
    Amount: WholeAmount,
    PartyA: ShortCode,
    PartyB: ShortCode,
    AccountReference: AccountReference.nullish(),
    Requester: Msisdn254.optional(),
    Remarks: z.string().min(1).max(100),
    QueueTimeOutURL: HttpUrl,
    ResultURL: HttpUrl,
    Occassion: z.string().max(100).optional(),
    Occasion: z.string().max(100).optional(),
  })
  .refine((b) => b.RecieverIdentifierType !== undefined || b.ReceiverIdentifierType !== undefined, {
    path: ['RecieverIdentifierType'],
  })
  .refine((b) => b.CommandID !== 'BusinessPayBill' || Boolean(b.AccountReference), {
    path: ['AccountReference'],
  });

interface B2bTransaction {
  originatorConversationId: string;
  conversationId: string;
  request: Record<string, unknown>;
  commandId: B2bCommand;
  partyA: string;
  partyB: string;
  amount: number;
  accountReference?: string;
  resultUrl: string;
  queueTimeOutUrl: string;
  outcome: B2cOutcome;
  state: 'pending' | 'completed' | 'failed' | 'timed-out';
  transactionId?: string;
  faults: FaultHolder;
  createdAt: number;
}

const conversationId = () => `AG_${darajaTimestamp().slice(0, 8)}_${hex(10)}`;
const originatorConversationId = () => `${digits(5)}-${digits(8)}-1`;

const money = (n: number) => n.toFixed(2);
/** Daraja's Java-map rendering of an amount: MinimumAmount in cents, BasicAmount in shillings. */
const amountMap = (n: number) =>
  `{Amount={CurrencyCode=KES, MinimumAmount=${Math.round(n * 100)}, BasicAmount=${money(n)}}}`;

export function registerB2b(
  core: DarajaCore,
  router: Router,
  prefixes: string[],
): { snapshot(): unknown[]; reset(): void } {
  const { sim } = core;
  const b2b = new Map<string, B2bTransaction>();

  const base = (kind: string, reference: string, url: string) =>
    darajaCallbackBase(core, kind, reference, url);

  function payment(ctx: RequestContext): Reply {
    core.authenticate(ctx);
    const b = core.body(ctx, B2bBody);
    const oc = originatorConversationId();
    const txn: B2bTransaction = {
      originatorConversationId: oc,
      conversationId: conversationId(),
      request: echoedRequest(ctx, oc),
      commandId: b.CommandID,
      partyA: b.PartyA,
      partyB: b.PartyB,
      amount: b.Amount,
      accountReference: b.AccountReference ?? undefined,
      resultUrl: b.ResultURL,
      queueTimeOutUrl: b.QueueTimeOutURL,
      // The same PartyB suffixes as B2C, so one table of triggers serves both payouts.
      outcome: b2cOutcome(b.PartyB),
      state: 'pending',
      faults: new FaultHolder(ctx.faults),
      createdAt: core.now(),
    };
    b2b.set(oc, txn);
    const faults = effectiveCallbackFaults(sim.faults, 'daraja', txn.faults);
    const timedOut = startQueueTimeout(
      core,
      faults,
      txn.outcome.type === 'queue-timeout',
      (shape) => ({
        kind: 'b2b-timeout',
        reference: oc,
        url: txn.queueTimeOutUrl,
        body: noticeOf(shape, txn),
      }),
      () => sendResult(txn, true),
      () => {
        txn.state = 'timed-out';
      },
    );
    if (!timedOut) sim.later(sim.opts.approvalDelayMs, () => sendResult(txn, false));
    return json(200, {
      OriginatorConversationID: oc,
      ConversationID: txn.conversationId,
      ResponseCode: '0',
      ResponseDescription: 'Accept the service request successfully.',
    });
  }

  async function sendResult(txn: B2bTransaction, late: boolean): Promise<void> {
    const o = txn.outcome;
    const success = o.type !== 'failure';
    const result = resultHead(o, txn);
    if (success) {
      const id = receipt(10);
      txn.transactionId = id;
      txn.state = 'completed';
      const left = core.adjustBalance(txn.partyA, -txn.amount);
      core.adjustBalance(txn.partyB, txn.amount);
      result.TransactionID = id;
      result.ResultParameters = {
        ResultParameter: [
          { Key: 'DebitAccountBalance', Value: amountMap(left) },
          { Key: 'Amount', Value: money(txn.amount) },
          {
            Key: 'DebitPartyAffectedAccountBalance',
            Value: `Working Account|KES|${money(left)}|${money(left)}|0.00|0.00`,
          },
          { Key: 'TransCompletedTime', Value: darajaTimestamp(new Date(core.now())) },
          { Key: 'DebitPartyCharges', Value: '' },
          { Key: 'ReceiverPartyPublicName', Value: receiverName(txn) },
          { Key: 'Currency', Value: 'KES' },
          { Key: 'InitiatorAccountCurrentBalance', Value: amountMap(left) },
        ],
      };
      record(txn, id, 'Completed');
    } else {
      txn.state = 'failed';
      result.TransactionID = `${receipt(3)}0000000`;
      record(txn, result.TransactionID as string, 'Declined');
    }
    result.ReferenceData = {
      ReferenceItem: [
        ...(txn.accountReference ? [{ Key: 'BillReferenceNumber', Value: txn.accountReference }] : []),
        { Key: 'QueueTimeoutURL', Value: txn.queueTimeOutUrl },
      ],
    };
    const faults = effectiveCallbackFaults(sim.faults, 'daraja', txn.faults);
    await sim.sender.deliver(
      {
        ...base('b2b-result', txn.originatorConversationId, txn.resultUrl),
        body: JSON.stringify({ Result: result }),
        summary: `${txn.originatorConversationId} ResultCode ${String(result.ResultCode)}${late ? ' (late)' : ''}`,
      },
      // A late result after a queue timeout is the point of that knob: the stale notice would be noise.
      late ? { ...faults, queueTimeout: undefined } : faults,
      {
        ...base('b2b-timeout', txn.originatorConversationId, txn.queueTimeOutUrl),
        body: noticeOf(sim.opts.daraja.queueTimeoutShape, txn),
        summary: `${txn.originatorConversationId} queue timeout (stale)`,
      },
    );
  }

  const receiverName = (txn: B2bTransaction) => `${txn.partyB} - Sim Receiver`;

  function record(txn: B2bTransaction, id: string, status: 'Completed' | 'Declined'): void {
    core.records.set(id, {
      type: 'b2b',
      receipt: id,
      originatorConversationId: txn.originatorConversationId,
      conversationId: txn.conversationId,
      amount: txn.amount,
      shortCode: txn.partyA,
      counterpartShortCode: txn.partyB,
      debitPartyName: `${txn.partyA} - Sim Merchant`,
      creditPartyName: receiverName(txn),
      status,
      reasonType: REASON_TYPE[txn.commandId],
      initiatedAt: new Date(txn.createdAt),
      finalisedAt: new Date(core.now()),
    });
  }

  for (const p of prefixes) router.add('daraja', 'POST', `${p}/b2b/v1/paymentrequest`, payment);

  return {
    snapshot: () =>
      [...b2b.values()].map((t) => ({
        provider: 'daraja',
        kind: 'b2b',
        reference: t.originatorConversationId,
        conversationId: t.conversationId,
        status: t.state,
        transactionId: t.transactionId,
        partyB: t.partyB,
        amount: t.amount,
        createdAt: new Date(t.createdAt).toISOString(),
      })),
    reset: () => b2b.clear(),
  };
}
