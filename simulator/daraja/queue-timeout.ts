import type { FaultSet } from '../core/faults';
import type { RequestContext } from '../core/http';
import { receipt } from '../core/ids';
import type { DarajaCore } from './core';
import { darajaErrors } from './errors';

/** An asynchronous request as an operation keeps it: what its queue-timeout notice is made of. */
export interface QueuedRequest {
  originatorConversationId: string;
  conversationId: string;
  /** The request as received plus its OriginatorConversationID (echoedRequest). */
  request: Record<string, unknown>;
  queueTimeOutUrl: string;
}

/** The request as received plus the ids Daraja gave it: what an echo-shaped notice carries. */
export function echoedRequest(
  ctx: RequestContext,
  originatorConversationId: string,
): Record<string, unknown> {
  return {
    ...(ctx.json(() => darajaErrors.invalidPayload()) as Record<string, unknown>),
    OriginatorConversationID: originatorConversationId,
  };
}

/** The notice of a kept request, in either shape. */
export function noticeOf(shape: 'echo' | 'result', queued: QueuedRequest): string {
  return queueTimeoutNotice(shape, queued.request, {
    oc: queued.originatorConversationId,
    c: queued.conversationId,
    queueTimeOutUrl: queued.queueTimeOutUrl,
  });
}

/** A Daraja callback's fixed fields: posted by the simulator from the Daraja source IP. */
export function darajaCallbackBase(core: DarajaCore, kind: string, reference: string, url: string) {
  return {
    provider: 'daraja' as const,
    kind,
    reference,
    url,
    method: 'POST' as const,
    sourceIp: core.sourceIp,
  };
}

/** The source IP of a callback: Daraja's, or a foreign one when the `foreign-ip` fault asks for it. */
function callbackSourceIp(core: DarajaCore, faults: FaultSet): string {
  if (!faults.foreignIp) return core.sourceIp;
  return faults.foreignIp === true ? core.sim.opts.foreignSourceIp : faults.foreignIp;
}

/** The queue-timeout notice in either shape seen in the wild (provider notes): the request echoed, or a Result. */
export function queueTimeoutNotice(
  shape: 'echo' | 'result',
  echo: Record<string, unknown>,
  ids: { oc: string; c: string; queueTimeOutUrl: unknown },
): string {
  if (shape === 'echo') return JSON.stringify(echo);
  return JSON.stringify({
    Result: {
      // ResultType 1: "waiting for further messages", the result may still come.
      ResultType: 1,
      ResultCode: 1037,
      ResultDesc: 'The request timed out in the queue.',
      OriginatorConversationID: ids.oc,
      ConversationID: ids.c,
      TransactionID: `${receipt(3)}0000000`,
      ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: ids.queueTimeOutUrl } },
    },
  });
}

/**
 * The queue-timeout path every asynchronous Daraja operation shares (B2C, status query, balance, reversal):
 * when forced (a trigger) or asked by the `queue-timeout` fault, the notice after `queueTimeoutAfterMs`,
 * then the real result only with a late-result setting. Returns true when the timeout path was taken.
 */
export function startQueueTimeout(
  core: DarajaCore,
  faults: FaultSet,
  forced: boolean,
  notice: (shape: 'echo' | 'result') => { kind: string; reference: string; url: string; body: string },
  lateResult: () => Promise<void>,
  onTimedOut?: () => void,
): boolean {
  const { sim } = core;
  if (!forced && !faults.queueTimeout) return false;
  const shape =
    faults.queueTimeout === 'echo' || faults.queueTimeout === 'result'
      ? faults.queueTimeout
      : sim.opts.daraja.queueTimeoutShape;
  const n = notice(shape);
  sim.later(sim.scheduler.scaled(sim.opts.daraja.queueTimeoutAfterMs), async () => {
    onTimedOut?.();
    await sim.sender.send(
      {
        ...darajaCallbackBase(core, n.kind, n.reference, n.url),
        body: n.body,
        summary: `${n.reference} queue timeout (${shape})`,
        sourceIp: callbackSourceIp(core, faults),
      },
      faults.foreignIp ? ['foreign-ip'] : [],
    );
    const lateMs =
      faults.lateResultMs ??
      (sim.opts.daraja.queueTimeoutLateResultMs === undefined
        ? undefined
        : sim.scheduler.scaled(sim.opts.daraja.queueTimeoutLateResultMs));
    if (lateMs !== undefined) sim.later(lateMs, lateResult);
  });
  return true;
}

/**
 * The head every asynchronous Daraja result shares (B2C, B2B): ResultType 0, the outcome's code and
 * description, the request's ids; TransactionID filled in by the caller on success.
 */
export function resultHead(
  outcome: { type: string; resultCode?: number | string; resultDesc?: string },
  ids: { originatorConversationId: string; conversationId: string },
): Record<string, unknown> {
  const success = outcome.type !== 'failure';
  return {
    ResultType: 0,
    ResultCode: success ? 0 : outcome.resultCode,
    ResultDesc: success ? 'The service request is processed successfully.' : outcome.resultDesc,
    OriginatorConversationID: ids.originatorConversationId,
    ConversationID: ids.conversationId,
    TransactionID: '',
  };
}
