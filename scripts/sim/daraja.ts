/**
 * `npm run sim -- daraja stk | c2b | b2c`: Daraja operations as a partner integration does them, against
 * the simulator's Daraja API, with the relay's routes as callback URLs.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { darajaRouteUrl } from '../../shared/providers/daraja';
import type { DarajaAccountSettings } from '../../shared/providers/daraja/schema';
import { parseFaults } from '../../simulator/core/faults';
import { darajaTimestamp } from '../../simulator/core/ids';
import type { C2bOutcome } from '../../simulator/daraja/c2b';
import { b2cOutcome, stkOutcome } from '../../simulator/daraja/outcomes';
import type { SimulatorInfo } from '../../simulator/server';
import {
  accountOf,
  type Expectation,
  type ExpectedEvent,
  expectStatus,
  finalExpectation,
  httpStep,
  newReference,
  registerWithRelay,
  reasonProblem,
  relayTransaction,
  required,
  type ScenarioOptions,
  ScenarioError,
  type SimContext,
  type Started,
  simulatorInfo,
  simUrl,
  tokenStep,
} from './core';
import { parseExpires, withExpiry } from './expiry';
import { withFaults } from './faults';

export const DARAJA_PHONE = '254708374149';
export const STK_CANCELLING_PHONE = '254708371032';
export const STK_UNREACHABLE_PHONE = '254708371037';
export const B2C_QUEUE_TIMEOUT_PARTY_B = '254708370408';
/** The public sandbox's STK short code (the one its passkey belongs to). */
export const STK_SHORT_CODE = '174379';

const STK_REASONS: Record<string, string> = { '1032': 'REJECTED_BY_CUSTOMER', '1037': 'UNREACHABLE' };

async function darajaToken(ctx: SimContext, info: SimulatorInfo): Promise<string> {
  const basic = Buffer.from(`${info.daraja.consumerKey}:${info.daraja.consumerSecret}`).toString('base64');
  return tokenStep(
    ctx,
    'Daraja OAuth token',
    'GET',
    simUrl(ctx, '/oauth/v1/generate?grant_type=client_credentials'),
    {
      headers: { authorization: `Basic ${basic}` },
    },
  );
}

function darajaHeaders(token: string, fault: string | undefined): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    ...(fault ? { 'x-sim-fault': fault } : {}),
  };
}

// ---- STK push --------------------------------------------------------------------------------------

function stkExpectation(phone: string): Expectation {
  const outcome = stkOutcome(phone);
  const what = `phone ${phone} (ResultCode ${outcome.resultCode} "${outcome.resultDesc}")`;
  return outcome.resultCode === 0
    ? finalExpectation('TransactionSucceeded', what, 1)
    : finalExpectation('TransactionFailed', what, 1, STK_REASONS[String(outcome.resultCode)]);
}

export async function darajaStk(ctx: SimContext, options: ScenarioOptions): Promise<Started> {
  const account = accountOf<DarajaAccountSettings>(ctx, 'daraja', options.account);
  const info = await simulatorInfo(ctx);
  const shortCode = options.shortCode ?? STK_SHORT_CODE;
  const passkey = info.daraja.passkeys[shortCode];
  if (!passkey) {
    throw new ScenarioError(
      `the simulator has no STK passkey for short code ${shortCode} (it has ${Object.keys(info.daraja.passkeys).join(', ')})`,
    );
  }
  const phone = options.phone ?? DARAJA_PHONE;
  const amount = options.amount ?? '1';
  const expiresInSeconds = parseExpires(options.expires);
  const expectation = withExpiry(
    withFaults(stkExpectation(phone), parseFaults(options.fault), 'daraja', 'stk'),
    expiresInSeconds,
    undefined,
  );
  const token = await darajaToken(ctx, info);

  const timestamp = darajaTimestamp();
  const callbackUrl = darajaRouteUrl(ctx.relayUrl, account.id, account.pathSecret, 'stk');
  const push = await httpStep<{ CheckoutRequestID: string; ResponseDescription: string }>(
    ctx,
    'STK push',
    'POST',
    simUrl(ctx, '/mpesa/stkpush/v1/processrequest'),
    {
      headers: darajaHeaders(token, options.fault),
      body: JSON.stringify({
        BusinessShortCode: shortCode,
        Password: Buffer.from(`${shortCode}${passkey}${timestamp}`).toString('base64'),
        Timestamp: timestamp,
        TransactionType: 'CustomerPayBillOnline',
        Amount: Number(amount),
        PartyA: phone,
        PartyB: shortCode,
        PhoneNumber: phone,
        CallBackURL: callbackUrl,
        AccountReference: 'SIM-ORDER',
        TransactionDesc: 'Sim payment',
      }),
      note: (a) =>
        a.body?.CheckoutRequestID
          ? `${a.body.ResponseDescription} (CheckoutRequestID ${a.body.CheckoutRequestID}, CallBackURL ${callbackUrl})`
          : a.text,
    },
  );
  expectStatus(push, [200], 'the STK push');
  const reference = required(push.body?.CheckoutRequestID, 'CheckoutRequestID');

  // The CheckoutRequestID is known only now; a callback faster than this is adopted by the registration.
  await registerWithRelay(ctx, {
    provider: 'daraja',
    account: account.id,
    kind: 'stk',
    reference,
    amount,
    currency: account.settings.currency,
    msisdn: phone,
    ...(expiresInSeconds === undefined ? {} : { expiresInSeconds }),
  });

  return {
    provider: 'daraja',
    account: account.id,
    reference,
    simReference: reference,
    description: `Daraja STK push ${amount} ${account.settings.currency} to ${phone} (short code ${shortCode})`,
    expectation,
  };
}

// ---- B2C -------------------------------------------------------------------------------------------

function b2cExpectation(partyB: string): Expectation {
  const outcome = b2cOutcome(partyB);
  const what = `PartyB ${partyB}`;
  if (outcome.type === 'success') return finalExpectation('TransactionSucceeded', `${what} (paid)`, 1);
  if (outcome.type === 'failure')
    return finalExpectation('TransactionFailed', `${what} (ResultCode ${outcome.resultCode})`, 1);
  return {
    ...finalExpectation('TransactionAmbiguous', `${what} (queue timeout, no result)`, 1, 'TIMED_OUT'),
  };
}

export async function darajaB2c(ctx: SimContext, options: ScenarioOptions): Promise<Started> {
  const account = accountOf<DarajaAccountSettings>(ctx, 'daraja', options.account);
  const info = await simulatorInfo(ctx);
  const partyA = options.shortCode ?? account.settings.shortCode ?? '600638';
  const partyB = options.partyB ?? DARAJA_PHONE;
  const amount = options.amount ?? '10';
  const expiresInSeconds = parseExpires(options.expires);
  const expectation = withExpiry(
    withFaults(b2cExpectation(partyB), parseFaults(options.fault), 'daraja', 'b2c'),
    expiresInSeconds,
    undefined,
  );
  const token = await darajaToken(ctx, info);

  // B2C v3 takes the partner's OriginatorConversationID, so the reference is known before the request.
  const reference = newReference('SIM-B2C');
  const { callbackUrl } = await registerWithRelay(ctx, {
    provider: 'daraja',
    account: account.id,
    kind: 'b2c',
    reference,
    amount,
    currency: account.settings.currency,
    msisdn: partyB,
    ...(expiresInSeconds === undefined ? {} : { expiresInSeconds }),
  });
  const resultUrl = callbackUrl ?? darajaRouteUrl(ctx.relayUrl, account.id, account.pathSecret, 'b2c-result');
  const timeoutUrl = resultUrl.replace(/\/b2c\/result$/, '/b2c/timeout');
  const payment = await httpStep<{ ConversationID: string; ResponseDescription: string }>(
    ctx,
    'B2C payment request',
    'POST',
    simUrl(ctx, '/mpesa/b2c/v3/paymentrequest'),
    {
      headers: darajaHeaders(token, options.fault),
      body: JSON.stringify({
        OriginatorConversationID: reference,
        InitiatorName: 'testapi',
        SecurityCredential: Buffer.from('sim-initiator-credential').toString('base64'),
        CommandID: 'BusinessPayment',
        Amount: Number(amount),
        PartyA: partyA,
        PartyB: partyB,
        Remarks: 'Simulated payout',
        QueueTimeOutURL: timeoutUrl,
        ResultURL: resultUrl,
        Occassion: 'npm run sim',
      }),
      note: (a) =>
        a.body?.ConversationID
          ? `${a.body.ResponseDescription} (ConversationID ${a.body.ConversationID})`
          : a.text,
    },
  );
  expectStatus(payment, [200], 'the B2C payment request');

  return {
    provider: 'daraja',
    account: account.id,
    reference,
    simReference: reference,
    description: `Daraja B2C ${amount} ${account.settings.currency} from ${partyA} to ${partyB}`,
    expectation,
  };
}

// ---- C2B -------------------------------------------------------------------------------------------

interface C2bPrediction {
  decision: 'accept' | 'reject';
  resultCode: string;
  because: string;
  deadlineApplied?: boolean;
}

/**
 * What the account's validation rules should answer (the partner's expectation, from the same settings the
 * relay reads): short code, MSISDN prefix, amount range, bill-reference pattern, and a partner endpoint
 * on the simulator's never-answers path (→ the deadline default). Undefined when it cannot be told.
 */
export function predictC2b(
  settings: DarajaAccountSettings,
  input: { shortCode: string; msisdn: string; amount: number; billRef: string },
): C2bPrediction | undefined {
  const c2b = settings.c2b;
  if (settings.shortCode && input.shortCode !== settings.shortCode)
    return { decision: 'reject', resultCode: 'C2B00015', because: 'another short code' };
  // The MSISDN arrives masked (25470****149): only its first five digits can be checked.
  const visible = input.msisdn.slice(0, 5);
  if (c2b.msisdnPrefixes && !c2b.msisdnPrefixes.some((p) => visible.startsWith(p.slice(0, visible.length))))
    return { decision: 'reject', resultCode: 'C2B00011', because: 'MSISDN prefix not allowed' };
  if (
    !(input.amount > 0) ||
    (c2b.minAmount !== undefined && input.amount < c2b.minAmount) ||
    (c2b.maxAmount !== undefined && input.amount > c2b.maxAmount)
  ) {
    return {
      decision: 'reject',
      resultCode: 'C2B00013',
      because: `amount outside ${c2b.minAmount ?? 0}–${c2b.maxAmount ?? '∞'}`,
    };
  }
  if (c2b.billRefPattern && !new RegExp(`^(?:${c2b.billRefPattern})$`).test(input.billRef.trim()))
    return {
      decision: 'reject',
      resultCode: 'C2B00012',
      because: `bill reference not /${c2b.billRefPattern}/`,
    };
  if (c2b.knownAccounts) return undefined;
  if (c2b.partner) {
    if (!new URL(c2b.partner.url).pathname.startsWith('/_sim/never-answers')) return undefined;
    const accept = c2b.defaultDecision === 'accept';
    return {
      decision: c2b.defaultDecision,
      resultCode: accept ? '0' : c2b.defaultRejectCode,
      because: `the partner endpoint never answers: the account default after ${c2b.deadlineMs} ms`,
      deadlineApplied: true,
    };
  }
  return { decision: 'accept', resultCode: '0', because: 'every rule passes' };
}

function c2bExpectation(prediction: C2bPrediction | undefined, what: string): Expectation {
  if (!prediction) {
    return {
      summary: `${what} → C2BValidationDecided (decision not predictable from the settings)`,
      events: [{ type: 'C2BValidationDecided' }],
    };
  }
  const decided: ExpectedEvent = {
    type: 'C2BValidationDecided',
    data: {
      decision: prediction.decision,
      resultCode: prediction.resultCode,
      ...(prediction.deadlineApplied ? { deadlineApplied: true } : {}),
    },
    check: (d) =>
      typeof d.elapsedMs === 'number' && typeof d.deadlineMs === 'number' && d.elapsedMs > d.deadlineMs
        ? `answered after ${d.elapsedMs} ms, beyond its ${d.deadlineMs} ms deadline`
        : undefined,
  };
  const decision = `${prediction.decision}${prediction.decision === 'reject' ? ` ${prediction.resultCode}` : ''}`;
  if (prediction.decision === 'accept') {
    return {
      summary: `${what}: ${prediction.because} → C2BValidationDecided ${decision}${prediction.deadlineApplied ? ' (deadlineApplied)' : ''}, then the confirmation → TransactionSucceeded (c2b)`,
      events: [decided, { type: 'TransactionSucceeded', data: { kind: 'c2b' } }],
      status: 'SUCCEEDED',
      deliveries: 2,
    };
  }
  return {
    summary: `${what}: ${prediction.because} → C2BValidationDecided ${decision}${prediction.deadlineApplied ? ' (deadlineApplied)' : ''}, no confirmation`,
    events: [decided],
    forbid: ['TransactionSucceeded'],
    deliveries: 1,
    noTransaction: true,
  };
}

/**
 * `--fault drop` on a C2B payment: the confirmation never comes (the money moved all the same), and no status
 * check looks for a payment the relay never heard of; the relay's pull of the short code finds it
 * (docs/pull-and-balances.md): the row opens the transaction, TransactionSucceeded with origin `poll` (the
 * relay's own pull; its evidence names the statement).
 */
function withDroppedConfirmation(x: Expectation): Expectation {
  if (x.status !== 'SUCCEEDED') return x;
  return {
    summary: `${x.summary.replace(/, then the confirmation →.*$/, '')}, the confirmation dropped; the relay's pull of the short code finds the payment → TransactionSucceeded (c2b), origin poll (evidence: statement)`,
    events: x.events.map((e) => (e.type === 'TransactionSucceeded' ? { ...e, origin: 'poll' } : e)),
    status: 'SUCCEEDED',
    deliveries: x.deliveries,
    waitFor: 'pull',
  };
}

export async function darajaC2b(ctx: SimContext, options: ScenarioOptions): Promise<Started> {
  const account = accountOf<DarajaAccountSettings>(ctx, 'daraja', options.account);
  const shortCode = account.settings.shortCode;
  if (!shortCode) {
    throw new ScenarioError(
      `daraja/${account.id} has no shortCode in the relay config: C2B payments are routed by short code`,
    );
  }
  const info = await simulatorInfo(ctx);
  const msisdn = options.msisdn ?? DARAJA_PHONE;
  const amount = options.amount ?? '100';
  const billRef = options.billRef ?? 'ACC-001';
  const what = `pay bill ${shortCode}, ${amount} ${account.settings.currency}, bill ref "${billRef}"`;
  const accepted = c2bExpectation(
    predictC2b(account.settings, { shortCode, msisdn, amount: Number(amount), billRef }),
    what,
  );
  const expectation = parseFaults(options.fault).drop ? withDroppedConfirmation(accepted) : accepted;
  const token = await darajaToken(ctx, info);

  const started = Date.now();
  const simulate = await httpStep<{ SimulatorOutcome: C2bOutcome }>(
    ctx,
    'C2B payment (simulate)',
    'POST',
    simUrl(ctx, '/mpesa/c2b/v1/simulate'),
    {
      headers: darajaHeaders(token, options.fault),
      body: JSON.stringify({
        ShortCode: shortCode,
        CommandID: 'CustomerPayBillOnline',
        Amount: Number(amount),
        Msisdn: msisdn,
        BillRefNumber: billRef,
      }),
      note: (a) => {
        const o = a.body?.SimulatorOutcome;
        if (!o) return a.text;
        return `TransID ${o.TransID}: validation ${o.validation}${o.validationResultCode ? ` (ResultCode ${o.validationResultCode})` : ''}, confirmation ${o.confirmation} — ${Date.now() - started} ms`;
      },
    },
  );
  expectStatus(simulate, [200], 'the C2B simulate call');
  const outcome = required(simulate.body?.SimulatorOutcome, 'SimulatorOutcome');
  if (outcome.validation === 'skipped') {
    throw new ScenarioError(
      `the simulator did not call a validation URL for short code ${shortCode} (none registered, or external validation off): is it wired to this relay (\`npm start -- --simulator\`)?`,
    );
  }

  return {
    provider: 'daraja',
    account: account.id,
    reference: outcome.TransID,
    simReference: outcome.TransID,
    description: `Daraja C2B ${what}, from ${msisdn}`,
    expectation,
  };
}

// ---- Account balance and reversal ----------------------------------------------------------------

/** The simulator's balance/reversal triggers (simulator/daraja/balance-reversal.ts): by PartyA / ReceiverParty. */
export const BALANCE_INITIATOR_INVALID_SHORT_CODE = '602001';
export const BALANCE_QUEUE_TIMEOUT_SHORT_CODE = '600408';

/** Balance and reversal requests: accepted at once, answered later on ResultURL under this OriginatorConversationID. */
async function asyncRequest(
  ctx: SimContext,
  token: string,
  fault: string | undefined,
  title: string,
  path: string,
  body: Record<string, unknown>,
): Promise<string> {
  const answer = await httpStep<{ OriginatorConversationID: string; ResponseDescription: string }>(
    ctx,
    title,
    'POST',
    simUrl(ctx, path),
    {
      headers: darajaHeaders(token, fault),
      body: JSON.stringify(body),
      note: (a) =>
        a.body?.OriginatorConversationID
          ? `${a.body.ResponseDescription} (OriginatorConversationID ${a.body.OriginatorConversationID})`
          : a.text,
    },
  );
  expectStatus(answer, [200], `the ${title.toLowerCase()}`);
  return required(answer.body?.OriginatorConversationID, 'OriginatorConversationID');
}

const BALANCE_IS_NO_TRANSACTION = 'an account balance is a fact about the short code, not a transaction';

function balanceExpectation(shortCode: string): Expectation {
  const what = `short code ${shortCode}`;
  const failed = (reason: string, why: string): Expectation => ({
    summary: `${what} (${why}) → AccountBalanceFailed (reason ${reason})`,
    events: [{ type: 'AccountBalanceFailed', check: (d) => reasonProblem(d, reason) }],
    forbid: ['AccountBalanceReported'],
    deliveries: 1,
    noTransaction: true,
    noTransactionNote: BALANCE_IS_NO_TRANSACTION,
  });
  if (shortCode.endsWith('2001')) return failed('INVALID_INITIATOR', 'ResultCode 2001');
  if (shortCode.endsWith('0408')) return failed('TIMED_OUT', 'queue timeout, no result');
  return {
    summary: `${what} → AccountBalanceReported with the accounts parsed`,
    events: [
      {
        type: 'AccountBalanceReported',
        check: (d) => {
          const accounts = d.accounts as { name?: string }[] | undefined;
          return accounts?.some((a) => a.name === 'Working Account')
            ? undefined
            : `accounts ${JSON.stringify(accounts)} lack the Working Account`;
        },
      },
    ],
    forbid: ['AccountBalanceFailed'],
    deliveries: 1,
    noTransaction: true,
    noTransactionNote: BALANCE_IS_NO_TRANSACTION,
  };
}

/** `npm run sim -- daraja balance`: the short code's balance; the result arrives on the relay's balance routes. */
export async function darajaBalance(ctx: SimContext, options: ScenarioOptions): Promise<Started> {
  const account = accountOf<DarajaAccountSettings>(ctx, 'daraja', options.account);
  const info = await simulatorInfo(ctx);
  const shortCode = options.shortCode ?? account.settings.shortCode ?? '600638';
  const expectation = withFaults(
    balanceExpectation(shortCode),
    parseFaults(options.fault),
    'daraja',
    'balance',
  );
  const token = await darajaToken(ctx, info);
  const id = await asyncRequest(
    ctx,
    token,
    options.fault,
    'Account balance query',
    '/mpesa/accountbalance/v1/query',
    {
      Initiator: 'testapi',
      SecurityCredential: Buffer.from('sim-initiator-credential').toString('base64'),
      CommandID: 'AccountBalance',
      PartyA: shortCode,
      IdentifierType: '4',
      Remarks: 'npm run sim balance',
      QueueTimeOutURL: darajaRouteUrl(ctx.relayUrl, account.id, account.pathSecret, 'balance-timeout'),
      ResultURL: darajaRouteUrl(ctx.relayUrl, account.id, account.pathSecret, 'balance-result'),
    },
  );
  return {
    provider: 'daraja',
    account: account.id,
    reference: id,
    simReference: id,
    description: `Daraja account balance of short code ${shortCode}`,
    expectation,
  };
}

function reversalExpectation(receiverParty: string, receipt: string, known: boolean): Expectation {
  const what = `receipt ${receipt}, ReceiverParty ${receiverParty}`;
  const reasonCheck = (reason: string) => (d: Record<string, unknown>) => reasonProblem(d, reason);
  if (receiverParty.endsWith('2001'))
    return {
      summary: `${what} (ResultCode 2001) → ReversalFailed (reason NOT_ALLOWED, INVALID_INITIATOR), the payment stays SUCCEEDED`,
      events: [{ type: 'ReversalFailed', check: reasonCheck('INVALID_INITIATOR') }],
      forbid: ['TransactionReversed'],
      ...(known
        ? { status: 'SUCCEEDED' }
        : {
            noTransaction: true as const,
            noTransactionNote: 'the relay knows no payment with that receipt',
          }),
      deliveries: 1,
    };
  if (receiverParty.endsWith('0408'))
    return {
      summary: `${what} (queue timeout, no result) → ReversalAmbiguous (reason TIMED_OUT)`,
      events: [{ type: 'ReversalAmbiguous', check: reasonCheck('TIMED_OUT') }],
      forbid: ['TransactionReversed'],
      ...(known
        ? { status: 'SUCCEEDED' }
        : {
            noTransaction: true as const,
            noTransactionNote: 'the relay knows no payment with that receipt',
          }),
      deliveries: 1,
    };
  if (!known)
    return {
      summary: `${what} (a receipt given by hand: Daraja decides) → TransactionReversed, or ReversalFailed (R000001 already reversed, R000002 unknown receipt)`,
      events: [],
      oneOf: ['TransactionReversed', 'ReversalFailed'],
      deliveries: 1,
      noTransaction: true,
      noTransactionNote: 'a reversal names the payment it reverses, not a transaction of its own',
    };
  return {
    summary: `${what} → TransactionReversed (amountCheck matches, netAmount 0); the payment keeps its SUCCEEDED status and reads as fully reversed`,
    events: [
      {
        type: 'TransactionReversed',
        data: { amountCheck: 'matches', transactionStatus: 'SUCCEEDED' },
        // The whole payment went back: nothing is left of it.
        check: (d) =>
          (d.netAmount as { value?: unknown } | null)?.value === '0'
            ? undefined
            : `netAmount ${JSON.stringify(d.netAmount)}, expected 0`,
      },
    ],
    forbid: ['ReversalFailed', 'TransactionFailed'],
    status: 'SUCCEEDED',
    deliveries: 1,
  };
}

/**
 * `npm run sim -- daraja reversal`: an STK payment first (its receipt is what gets reversed), then the
 * reversal request with the relay's reversal routes; `--receipt` reverses an existing receipt instead.
 */
export async function darajaReversal(ctx: SimContext, options: ScenarioOptions): Promise<Started> {
  const account = accountOf<DarajaAccountSettings>(ctx, 'daraja', options.account);
  const info = await simulatorInfo(ctx);
  let receipt: string | undefined = options.receipt;
  let reference: string | undefined;
  const amount = options.amount ?? '1';
  if (!receipt) {
    // --short-code is the reversal's ReceiverParty (its triggers); the payment goes to the STK short code.
    const paid = await darajaStk(ctx, {
      ...options,
      shortCode: undefined,
      fault: undefined,
      expires: undefined,
      amount,
    });
    reference = paid.reference;
    const deadline = Date.now() + ctx.timeoutMs;
    for (;;) {
      const tx = await relayTransaction(ctx, 'daraja', account.id, paid.reference);
      if (tx?.status === 'SUCCEEDED' && tx.providerTransactionId) {
        receipt = tx.providerTransactionId;
        break;
      }
      // SUCCEEDED without a receipt: the STK query settled it before the callback came (its answer has no
      // receipt); the relay learns it once Daraja confirms the callback's one (docs/reconciliation.md).
      if (tx && tx.status !== 'PENDING' && tx.status !== 'AMBIGUOUS' && tx.status !== 'SUCCEEDED')
        throw new ScenarioError(`the payment to reverse ended ${tx.status}; nothing to reverse`);
      if (Date.now() > deadline)
        throw new ScenarioError(
          tx?.status === 'SUCCEEDED'
            ? `the payment to reverse (${paid.reference}) succeeded, but its M-Pesa receipt was not confirmed in time`
            : `the payment to reverse (${paid.reference}) did not succeed in time`,
        );
      await sleep(ctx.pollMs);
    }
  }
  if (!receipt) throw new ScenarioError('no receipt to reverse');
  const receiverParty = options.shortCode ?? STK_SHORT_CODE;
  const expectation = withFaults(
    reversalExpectation(receiverParty, receipt, reference !== undefined),
    parseFaults(options.fault),
    'daraja',
    'reversal',
  );
  const token = await darajaToken(ctx, info);
  const id = await asyncRequest(ctx, token, options.fault, 'Reversal request', '/mpesa/reversal/v1/request', {
    Initiator: 'testapi',
    SecurityCredential: Buffer.from('sim-initiator-credential').toString('base64'),
    CommandID: 'TransactionReversal',
    TransactionID: receipt,
    Amount: Number(amount),
    ReceiverParty: receiverParty,
    RecieverIdentifierType: '11',
    Remarks: 'npm run sim reversal',
    QueueTimeOutURL: darajaRouteUrl(ctx.relayUrl, account.id, account.pathSecret, 'reversal-timeout'),
    ResultURL: darajaRouteUrl(ctx.relayUrl, account.id, account.pathSecret, 'reversal-result'),
    // Echoed back in ReferenceData: links a failed reversal to the payment too.
    Occasion: receipt,
  });
  return {
    provider: 'daraja',
    account: account.id,
    // Events about the reversed payment name its reference; an unknown receipt's name the request.
    reference: reference ?? id,
    simReference: id,
    description: `Daraja reversal of ${receipt} (${amount} ${account.settings.currency})${reference ? `, the STK payment ${reference}` : ''}`,
    expectation,
  };
}

// ---- B2B -------------------------------------------------------------------------------------------

/**
 * `npm run sim -- daraja b2b`: a business payment (Daraja's B2B documentation). Daraja
 * names the request (OriginatorConversationID) in its answer, so the registration follows the request, as
 * for STK; a result faster than the registration is adopted by it. PartyB picks the outcome, as for B2C.
 */
export async function darajaB2b(ctx: SimContext, options: ScenarioOptions): Promise<Started> {
  const account = accountOf<DarajaAccountSettings>(ctx, 'daraja', options.account);
  const info = await simulatorInfo(ctx);
  const partyA = options.shortCode ?? account.settings.shortCode ?? '600638';
  const partyB = options.partyB ?? '600000';
  const amount = options.amount ?? '190';
  const expectation = withFaults(b2cExpectation(partyB), parseFaults(options.fault), 'daraja', 'b2b');
  const token = await darajaToken(ctx, info);
  const reference = await asyncRequest(
    ctx,
    token,
    options.fault,
    'B2B payment request',
    '/mpesa/b2b/v1/paymentrequest',
    {
      Initiator: 'testapi',
      SecurityCredential: Buffer.from('sim-initiator-credential').toString('base64'),
      CommandID: 'BusinessPayBill',
      SenderIdentifierType: '4',
      RecieverIdentifierType: '4',
      Amount: Number(amount),
      PartyA: partyA,
      PartyB: partyB,
      AccountReference: 'SIM-INV-1',
      Remarks: 'npm run sim b2b',
      QueueTimeOutURL: darajaRouteUrl(ctx.relayUrl, account.id, account.pathSecret, 'b2b-timeout'),
      ResultURL: darajaRouteUrl(ctx.relayUrl, account.id, account.pathSecret, 'b2b-result'),
    },
  );
  await registerWithRelay(ctx, {
    provider: 'daraja',
    account: account.id,
    kind: 'b2b',
    reference,
    amount,
    currency: account.settings.currency,
  });
  return {
    provider: 'daraja',
    account: account.id,
    reference,
    simReference: reference,
    description: `Daraja B2B ${amount} ${account.settings.currency} from ${partyA} to ${partyB}`,
    expectation,
  };
}
