/** B2C payment request (v1 and v3) and transaction status query, both answered through ResultURL. */
import * as z from 'zod';
import { effectiveCallbackFaults, FaultHolder, type FaultSet } from '../core/faults';
import { json, type Reply, type RequestContext } from '../core/http';
import { darajaDottedDate, darajaTimestamp, digits, hex, receipt } from '../core/ids';
import { maskMsisdn } from '../core/log';
import type { Router } from '../core/router';
import { applyStatusFaults } from '../core/status-faults';
import type { DarajaCore, DarajaRecord } from './core';
import { darajaErrors } from './errors';
import { darajaCallbackBase, queueTimeoutNotice, resultHead, startQueueTimeout } from './queue-timeout';
import { type B2cOutcome, b2cOutcome } from './outcomes';
import { digitsOf, HttpUrl, Msisdn254, WholeAmount } from './schema';

const B2cBody = z.object({
  OriginatorConversationID: z.string().min(1).optional(),
  InitiatorName: z.string().min(1),
  SecurityCredential: z.string().min(1),
  CommandID: z.enum(['SalaryPayment', 'BusinessPayment', 'PromotionPayment']),
  Amount: WholeAmount,
  PartyA: digitsOf(/^\d{5,6}$/),
  PartyB: Msisdn254,
  Remarks: z.string().min(1).max(100),
  QueueTimeOutURL: HttpUrl,
  ResultURL: HttpUrl,
  Occassion: z.string().max(100).optional(),
});

const StatusBody = z
  .object({
    Initiator: z.string().min(1),
    SecurityCredential: z.string().min(1),
    CommandID: z.literal('TransactionStatusQuery'),
    TransactionID: z.string().optional(),
    OriginatorConversationID: z.string().optional(),
    PartyA: digitsOf(/^(\d{5,9}|254\d{9})$/),
    IdentifierType: digitsOf(/^\d$/),
    ResultURL: HttpUrl,
    QueueTimeOutURL: HttpUrl,
    Remarks: z.string().max(100).optional(),
    Occasion: z.string().max(100).optional(),
  })
  .refine((b) => b.TransactionID || b.OriginatorConversationID, { path: ['TransactionID'] });

interface B2cTransaction {
  version: 'v1' | 'v3';
  originatorConversationId: string;
  conversationId: string;
  request: Record<string, unknown>;
  partyA: string;
  partyB: string;
  amount: number;
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

export function registerB2c(
  core: DarajaCore,
  router: Router,
  prefixes: string[],
): { snapshot(): unknown[]; reset(): void } {
  const { sim } = core;
  const b2c = new Map<string, B2cTransaction>();

  const base = (kind: string, reference: string, url: string) =>
    darajaCallbackBase(core, kind, reference, url);

  const timeoutNotice = (
    shape: 'echo' | 'result',
    echo: Record<string, unknown>,
    ids: { oc: string; c: string },
  ) => queueTimeoutNotice(shape, echo, { ...ids, queueTimeOutUrl: echo.QueueTimeOutURL });
  const queueTimeout = (
    faults: FaultSet,
    forced: boolean,
    notice: Parameters<typeof startQueueTimeout>[3],
    lateResult: () => Promise<void>,
  ) => startQueueTimeout(core, faults, forced, notice, lateResult);

  // ---- B2C ----------------------------------------------------------------------------------------

  function payment(version: 'v1' | 'v3') {
    return (ctx: RequestContext): Reply => {
      core.authenticate(ctx);
      const b = core.body(ctx, B2cBody);
      if (version === 'v3' && !b.OriginatorConversationID)
        throw darajaErrors.invalidField('OriginatorConversationID');
      const oc = b.OriginatorConversationID ?? originatorConversationId();
      if (b2c.has(oc)) throw darajaErrors.invalidField('OriginatorConversationID');
      const txn: B2cTransaction = {
        version,
        originatorConversationId: oc,
        conversationId: conversationId(),
        request: {
          ...(ctx.json(() => darajaErrors.invalidPayload()) as Record<string, unknown>),
          OriginatorConversationID: oc,
        },
        partyA: b.PartyA,
        partyB: b.PartyB,
        amount: b.Amount,
        resultUrl: b.ResultURL,
        queueTimeOutUrl: b.QueueTimeOutURL,
        outcome: b2cOutcome(b.PartyB),
        state: 'pending',
        faults: new FaultHolder(ctx.faults),
        createdAt: core.now(),
      };
      b2c.set(oc, txn);
      const faults = effectiveCallbackFaults(sim.faults, 'daraja', txn.faults);
      const timedOut = queueTimeout(
        faults,
        txn.outcome.type === 'queue-timeout',
        (shape) => {
          txn.state = 'timed-out';
          return {
            kind: 'b2c-timeout',
            reference: oc,
            url: txn.queueTimeOutUrl,
            body: timeoutNotice(shape, txn.request, { oc, c: txn.conversationId }),
          };
        },
        () => sendB2cResult(txn, true),
      );
      if (!timedOut) sim.later(sim.opts.approvalDelayMs, () => sendB2cResult(txn, false));
      return json(200, {
        ConversationID: txn.conversationId,
        OriginatorConversationID: oc,
        ResponseCode: '0',
        ResponseDescription: 'Accept the service request successfully.',
      });
    };
  }

  async function sendB2cResult(txn: B2cTransaction, late: boolean): Promise<void> {
    const o = txn.outcome;
    const success = o.type !== 'failure';
    // ReferenceItem comes as an object on v1 and as an array on v3, so both shapes get exercised.
    const refItem = { Key: 'QueueTimeoutURL', Value: txn.queueTimeOutUrl };
    const result = resultHead(o, txn);
    if (success) {
      const id = receipt(10);
      txn.transactionId = id;
      txn.state = 'completed';
      const balance = core.adjustBalance(txn.partyA, -txn.amount);
      result.TransactionID = id;
      result.ResultParameters = {
        ResultParameter: [
          { Key: 'TransactionAmount', Value: txn.amount },
          { Key: 'TransactionReceipt', Value: id },
          { Key: 'B2CRecipientIsRegisteredCustomer', Value: 'Y' },
          { Key: 'B2CChargesPaidAccountAvailableFunds', Value: -4510.0 },
          { Key: 'ReceiverPartyPublicName', Value: `${txn.partyB} - John Doe` },
          { Key: 'TransactionCompletedDateTime', Value: darajaDottedDate() },
          { Key: 'B2CUtilityAccountAvailableFunds', Value: balance },
          { Key: 'B2CWorkingAccountAvailableFunds', Value: 900000.0 },
        ],
      };
      record(txn, id, 'Completed');
    } else {
      txn.state = 'failed';
      result.TransactionID = `${receipt(3)}0000000`;
      record(txn, result.TransactionID as string, 'Declined');
    }
    result.ReferenceData = { ReferenceItem: txn.version === 'v3' ? [refItem] : refItem };
    const body = JSON.stringify({ Result: result });
    const faults = effectiveCallbackFaults(sim.faults, 'daraja', txn.faults);
    const stale = timeoutNotice(sim.opts.daraja.queueTimeoutShape, txn.request, {
      oc: txn.originatorConversationId,
      c: txn.conversationId,
    });
    await sim.sender.deliver(
      {
        ...base('b2c-result', txn.originatorConversationId, txn.resultUrl),
        body,
        summary: `${txn.originatorConversationId} ResultCode ${result.ResultCode}${late ? ' (late)' : ''}`,
      },
      // A late result after a queue timeout is the point of that knob: the stale notice would be noise.
      late ? { ...faults, queueTimeout: undefined } : faults,
      {
        ...base('b2c-timeout', txn.originatorConversationId, txn.queueTimeOutUrl),
        body: stale,
        summary: `${txn.originatorConversationId} queue timeout (stale)`,
      },
    );
  }

  function record(txn: B2cTransaction, id: string, status: 'Completed' | 'Declined'): void {
    core.records.set(id, {
      type: 'b2c',
      receipt: id,
      originatorConversationId: txn.originatorConversationId,
      conversationId: txn.conversationId,
      amount: txn.amount,
      shortCode: txn.partyA,
      debitPartyName: `${txn.partyA} - Sim Merchant`,
      creditPartyName: `${txn.partyB} - John Doe`,
      status,
      reasonType: 'Business Payment to Customer via API',
      initiatedAt: new Date(txn.createdAt),
      finalisedAt: new Date(core.now()),
    });
  }

  // ---- transaction status -------------------------------------------------------------------------

  async function status(ctx: RequestContext): Promise<Reply> {
    core.authenticate(ctx);
    const b = core.body(ctx, StatusBody);
    const found = findRecord(b.TransactionID, b.OriginatorConversationID);
    const txnFaults = found?.originatorConversationId
      ? b2c.get(found.originatorConversationId)?.faults
      : undefined;
    const fault = await applyStatusFaults(sim, 'daraja', ctx, txnFaults);
    if (fault) throw darajaErrors.internal(fault);
    const oc = originatorConversationId();
    const c = conversationId();
    const request = ctx.json(() => darajaErrors.invalidPayload()) as Record<string, unknown>;
    const faults = effectiveCallbackFaults(sim.faults, 'daraja', new FaultHolder(ctx.faults));
    const send = async () => {
      const body = JSON.stringify({ Result: statusResult(found, { oc, c, occasion: b.Occasion }) });
      await sim.sender.deliver(
        {
          ...base('status-result', oc, b.ResultURL),
          body,
          summary: `${b.TransactionID ?? b.OriginatorConversationID} ${found ? found.status : 'not found'}`,
        },
        { ...faults, queueTimeout: undefined },
      );
    };
    const timedOut = queueTimeout(
      faults,
      false,
      (shape) => ({
        kind: 'status-timeout',
        reference: oc,
        url: b.QueueTimeOutURL,
        body: timeoutNotice(shape, { ...request, OriginatorConversationID: oc }, { oc, c }),
      }),
      send,
    );
    // `result-first`: the result is posted (and answered) before the query's own answer leaves.
    if (!timedOut && faults.resultFirst) await send();
    else if (!timedOut) sim.later(sim.opts.approvalDelayMs, send);
    return json(200, {
      OriginatorConversationID: oc,
      ConversationID: c,
      ResponseCode: 0,
      ResponseDescription: 'Accept the service request successfully.',
    });
  }

  function findRecord(transactionId?: string, oc?: string): DarajaRecord | undefined {
    if (transactionId) {
      const r = core.records.get(transactionId) ?? core.reversals.get(transactionId);
      if (r) return r;
    }
    if (oc) return [...core.records.values()].find((r) => r.originatorConversationId === oc);
    return undefined;
  }

  function statusResult(
    r: DarajaRecord | undefined,
    ids: { oc: string; c: string; occasion: string | undefined },
  ) {
    const ReferenceData = {
      ReferenceItem: ids.occasion ? { Key: 'Occasion', Value: ids.occasion } : { Key: 'Occasion' },
    };
    if (!r) {
      return {
        ConversationID: ids.c,
        OriginatorConversationID: ids.oc,
        ReferenceData,
        // String-typed code (max 10 characters per Daraja's docs), unlike the numeric 0 of a found transaction.
        ResultCode: 'R000001',
        ResultDesc: 'The transaction could not be found.',
        ResultType: 0,
        TransactionID: `${receipt(3)}0000000`,
      };
    }
    const ts = (d: Date) => Number(darajaTimestamp(d));
    return {
      ConversationID: ids.c,
      OriginatorConversationID: ids.oc,
      ReferenceData,
      ResultCode: 0,
      ResultDesc: 'The service request is processed successfully.',
      ResultParameters: {
        // DebitPartyName repeats, as in the platform's own example.
        ResultParameter: [
          { Key: 'DebitPartyName', Value: r.debitPartyName },
          { Key: 'DebitPartyName', Value: r.creditPartyName },
          { Key: 'OriginatorConversationID', Value: r.originatorConversationId ?? ids.oc },
          { Key: 'InitiatedTime', Value: ts(r.initiatedAt) },
          { Key: 'DebitAccountType', Value: 'Utility Account' },
          { Key: 'DebitPartyCharges', Value: r.type === 'b2c' ? 'Fee For B2C Payment|KES|22.40' : '' },
          { Key: 'TransactionReason' },
          { Key: 'ReasonType', Value: r.reasonType },
          { Key: 'TransactionStatus', Value: r.status },
          { Key: 'FinalisedTime', Value: ts(r.finalisedAt) },
          { Key: 'Amount', Value: r.amount },
          { Key: 'ConversationID', Value: r.conversationId ?? ids.c },
          { Key: 'ReceiptNo', Value: r.receipt },
        ],
      },
      ResultType: 0,
      TransactionID: r.receipt,
    };
  }

  for (const p of prefixes) {
    router.add('daraja', 'POST', `${p}/b2c/v1/paymentrequest`, payment('v1'));
    router.add('daraja', 'POST', `${p}/b2c/v3/paymentrequest`, payment('v3'));
    router.add('daraja', 'POST', `${p}/transactionstatus/v1/query`, status, { statusCall: true });
  }

  return {
    snapshot: () =>
      [...b2c.values()].map((t) => ({
        provider: 'daraja',
        kind: 'b2c',
        reference: t.originatorConversationId,
        conversationId: t.conversationId,
        status: t.state,
        transactionId: t.transactionId,
        msisdn: maskMsisdn(t.partyB),
        amount: t.amount,
        createdAt: new Date(t.createdAt).toISOString(),
      })),
    reset: () => b2c.clear(),
  };
}
