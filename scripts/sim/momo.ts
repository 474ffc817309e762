/**
 * `npm run sim -- momo pay`: a MoMo request-to-pay, as a partner integration does it: a collection token,
 * registration with the relay (whose answer is the X-Callback-Url), then the request with X-Reference-Id.
 */
import { randomUUID } from 'node:crypto';
import type { MomoAccountSettings } from '../../shared/providers/momo/schema';
import { parseFaults } from '../../simulator/core/faults';
import { type OutcomeBehaviour, outcomeBehaviour, sandboxOutcome } from '../../simulator/momo/outcomes';
import { referenceBehaviour, referenceOutcome } from '../../simulator/momo/reference-triggers';
import { DEFAULTS } from '../../simulator/options';
import {
  accountOf,
  type Expectation,
  expectStatus,
  finalExpectation,
  httpStep,
  registerWithRelay,
  required,
  type ScenarioOptions,
  type SimContext,
  type Started,
  simulatorInfo,
  simulatorSettings,
  simUrl,
  tokenStep,
} from './core';
import { parseExpires, withExpiry } from './expiry';
import { withFaults } from './faults';

/** Not in the sandbox outcome table: pays. */
export const MOMO_PAYING_MSISDN = '46733123499';
const base = Number(DEFAULTS.momo.sandboxMsisdnBase);
export const MOMO_REJECTING_MSISDN = String(base + 1);
export const MOMO_EXPIRING_MSISDN = String(base + 2);
/** Ongoing (+3) and Delayed (+4): the payer never answers; PENDING until the approval window ends. */
export const MOMO_ONGOING_MSISDN = String(base + 3);
export const MOMO_DELAYED_MSISDN = String(base + 4);

/** The relay's reason for the sandbox outcomes the scenarios document. */
const REASONS: Record<string, string> = {
  APPROVAL_REJECTED: 'REJECTED_BY_CUSTOMER',
  EXPIRED: 'TIMED_OUT',
  COULD_NOT_PERFORM_TRANSACTION: 'TIMED_OUT',
  // Only refunds fail with it (refund row 1, NotFound): the refunded transaction is unknown.
  TRANSACTION_NOT_FOUND: 'ORIGINAL_NOT_FOUND',
};

/**
 * `confirms`: the account confirms unsigned successes with the status API (`confirmSuccess`, on by default
 * for MoMo, whose callbacks carry no signature): the callback's success is recorded as TransactionAmbiguous
 * (UNCONFIRMED) and the status call that confirms it publishes TransactionSucceeded with origin poll.
 */
function expectationFor(msisdn: string, sandboxBase: string, confirms: boolean): Expectation {
  const outcome = sandboxOutcome('requesttopay', msisdn, sandboxBase);
  return behaviourExpectation(
    outcomeBehaviour(outcome, 'payer'),
    `payer ${msisdn} (sandbox outcome ${outcome})`,
    confirms,
  );
}

function behaviourExpectation(behaviour: OutcomeBehaviour, what: string, confirms: boolean): Expectation {
  switch (behaviour.type) {
    case 'success': {
      const paid = finalExpectation('TransactionSucceeded', what, 1);
      if (!confirms) return paid;
      return {
        ...paid,
        summary: `${what} → TransactionAmbiguous (UNKNOWN, UNCONFIRMED), confirmed by a status call → TransactionSucceeded, origin poll`,
        events: [{ type: 'TransactionSucceeded', origin: 'poll' }],
      };
    }
    case 'failed':
    case 'unanswered':
      return finalExpectation('TransactionFailed', what, 1, REASONS[behaviour.code]);
    case 'sync-error':
      return {
        summary: `${what} → MoMo refuses the request (HTTP ${behaviour.status} ${behaviour.code}): no callback, the transaction stays PENDING`,
        events: [],
        forbid: ['TransactionSucceeded', 'TransactionFailed', 'TransactionAmbiguous'],
        status: 'PENDING',
        refusedWith: behaviour.status,
      };
  }
}

/** A product's token, as a partner gets it: Basic API user and key, with the product's subscription key. */
function momoToken(
  ctx: SimContext,
  product: 'collection' | 'disbursement',
  user: { id: string; apiKey?: string },
  subscriptionKey: string,
): Promise<string> {
  return tokenStep(ctx, `MoMo ${product} token`, 'POST', simUrl(ctx, `/${product}/token/`), {
    headers: {
      authorization: `Basic ${Buffer.from(`${user.id}:${user.apiKey ?? ''}`).toString('base64')}`,
      'ocp-apim-subscription-key': subscriptionKey,
    },
  });
}

/** The headers of a creating call: token, key, the partner's X-Reference-Id, the relay's callback URL. */
function createHeaders(
  token: string,
  subscriptionKey: string,
  reference: string,
  targetEnvironment: string,
  extra: { callbackUrl: string | undefined; fault: string | undefined },
): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    'ocp-apim-subscription-key': subscriptionKey,
    'x-reference-id': reference,
    'x-target-environment': targetEnvironment,
    'content-type': 'application/json',
    ...(extra.callbackUrl ? { 'x-callback-url': extra.callbackUrl } : {}),
    ...(extra.fault ? { 'x-sim-fault': extra.fault } : {}),
  };
}

export async function momoPay(ctx: SimContext, options: ScenarioOptions): Promise<Started> {
  const account = accountOf<MomoAccountSettings>(ctx, 'momo', options.account);
  const info = await simulatorInfo(ctx);
  const user = required(info.momo.apiUsers[0], 'MoMo API user');
  const subscriptionKey = info.momo.collectionSubscriptionKeys.primary;
  const msisdn = options.msisdn ?? MOMO_PAYING_MSISDN;
  const amount = options.amount ?? '100';
  const currency = options.currency ?? account.settings.currency ?? info.momo.currency;
  const faults = parseFaults(options.fault);
  const expiresInSeconds = parseExpires(options.expires);
  const outcome = sandboxOutcome('requesttopay', msisdn, info.momo.sandboxMsisdnBase);
  let expectation = withFaults(
    expectationFor(
      msisdn,
      info.momo.sandboxMsisdnBase,
      (account.settings as { confirmSuccess?: boolean }).confirmSuccess ?? true,
    ),
    faults,
    'momo',
    'requesttopay',
  );
  if (expiresInSeconds !== undefined) {
    // The payer of Ongoing/Delayed never answers: PENDING until the approval window (scaled) ends.
    const unanswered = outcomeBehaviour(outcome, 'payer').type === 'unanswered';
    const settings = unanswered ? await simulatorSettings(ctx) : undefined;
    expectation = withExpiry(
      expectation,
      expiresInSeconds,
      settings && {
        what: 'the payer never answers (PENDING)',
        settlesAfterMs: settings.momo.approvalWindowMs * settings.timeScale,
      },
    );
  }

  const reference = randomUUID();
  const { callbackUrl } = await registerWithRelay(ctx, {
    provider: 'momo',
    account: account.id,
    kind: 'requesttopay',
    reference,
    amount,
    currency,
    msisdn,
    externalId: `sim-order-${reference.slice(0, 8)}`,
    ...(expiresInSeconds === undefined ? {} : { expiresInSeconds }),
  });

  // The token right before its use, and a fresh one once if MoMo says it expired (as a client would):
  // a token made to die early (--fault token-expire-early) must not fail the partner's own request.
  const requestToPay = async () => {
    const token = await momoToken(ctx, 'collection', user, subscriptionKey);
    const headers = createHeaders(token, subscriptionKey, reference, info.momo.targetEnvironment, {
      callbackUrl,
      fault: options.fault,
    });
    return httpStep(ctx, 'request to pay', 'POST', simUrl(ctx, '/collection/v1_0/requesttopay'), {
      headers,
      body: JSON.stringify({
        amount,
        currency,
        externalId: `sim-order-${reference.slice(0, 8)}`,
        payer: { partyIdType: 'MSISDN', partyId: msisdn },
        payerMessage: 'Simulated order',
        payeeNote: 'npm run sim',
      }),
      note: (a) =>
        a.status === 202
          ? `accepted (X-Reference-Id ${reference}${options.fault ? `, X-Sim-Fault ${options.fault}` : ''})`
          : a.text,
    });
  };
  let rtp = await requestToPay();
  if (rtp.status === 401 && /token_expired/.test(rtp.text)) rtp = await requestToPay();
  if (expectation.refusedWith === undefined) expectStatus(rtp, [202], 'the request to pay');

  return {
    provider: 'momo',
    account: account.id,
    reference,
    simReference: reference,
    description: `MoMo request-to-pay ${amount} ${currency} from ${msisdn}`,
    expectation,
    ...(rtp.status === 202 ? {} : { refusedWith: rtp.status }),
  };
}

/**
 * `npm run sim -- momo refund`: a Disbursement refund as a partner makes it (its own X-Reference-Id,
 * registered first, so the relay hands out the callback URL); `--external-id 1`…`13` picks the MoMo sandbox's refund
 * outcome. The relay confirms the unsigned success with the refund's status GET.
 */
export async function momoRefund(ctx: SimContext, options: ScenarioOptions): Promise<Started> {
  const account = accountOf<MomoAccountSettings>(ctx, 'momo', options.account);
  const info = await simulatorInfo(ctx);
  const user = required(info.momo.apiUsers[0], 'MoMo API user');
  const subscriptionKey = info.momo.disbursementSubscriptionKeys.primary;
  const amount = options.amount ?? '25';
  const currency = options.currency ?? account.settings.currency ?? info.momo.currency;
  const reference = randomUUID();
  const externalId = options.externalId ?? `sim-refund-${reference.slice(0, 8)}`;
  const outcome = referenceOutcome('refund', externalId);
  const expectation = withFaults(
    behaviourExpectation(
      referenceBehaviour('refund', outcome),
      `refund with externalId ${externalId} (outcome ${outcome})`,
      (account.settings as { confirmSuccess?: boolean }).confirmSuccess ?? true,
    ),
    parseFaults(options.fault),
    'momo',
    'refund',
  );
  const token = await momoToken(ctx, 'disbursement', user, subscriptionKey);
  const { callbackUrl } = await registerWithRelay(ctx, {
    provider: 'momo',
    account: account.id,
    kind: 'refund',
    reference,
    amount,
    currency,
    externalId,
  });
  const headers = createHeaders(token, subscriptionKey, reference, info.momo.targetEnvironment, {
    callbackUrl,
    fault: options.fault,
  });
  const refund = await httpStep(ctx, 'refund', 'POST', simUrl(ctx, '/disbursement/v1_0/refund'), {
    headers,
    body: JSON.stringify({
      amount,
      currency,
      externalId,
      payerMessage: 'Refund',
      payeeNote: 'npm run sim',
      referenceIdToRefund: randomUUID(),
    }),
    note: (a) => (a.status === 202 ? `accepted (X-Reference-Id ${reference})` : a.text),
  });
  if (expectation.refusedWith === undefined) expectStatus(refund, [202], 'the refund');
  return {
    provider: 'momo',
    account: account.id,
    reference,
    simReference: reference,
    description: `MoMo refund ${amount} ${currency} (externalId ${externalId})`,
    expectation,
    ...(refund.status === 202 ? {} : { refusedWith: refund.status }),
  };
}
