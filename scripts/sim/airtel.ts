/**
 * `npm run sim -- airtel pay`: an Airtel push payment, as a partner integration does it: a token, the RSA
 * key for message signing, registration with the relay (the partner's transaction id is the reference),
 * then the signed payment. Airtel calls back the URL set in the app settings (the relay's callback route,
 * wired by `npm start -- --simulator`).
 */
import { airtelClientIdFor } from '../../local/simulator-wiring';
import type { AirtelAccountSettings } from '../../shared/providers/airtel/schema';
import { airtelOutcome } from '../../simulator/airtel/outcomes';
import { signAirtelRequest } from '../../simulator/airtel/signing';
import { parseFaults } from '../../simulator/core/faults';
import {
  accountOf,
  type Expectation,
  expectStatus,
  finalExpectation,
  httpStep,
  newReference,
  registerWithRelay,
  required,
  type ScenarioOptions,
  ScenarioError,
  type SimContext,
  type Started,
  simulatorInfo,
  simulatorSettings,
  simUrl,
  tokenStep,
} from './core';
import { parseExpires, withExpiry } from './expiry';
import { withFaults } from './faults';

/** Ends in 456: not in the outcome table, pays. */
export const AIRTEL_PAYING_MSISDN = '752123456';
export const AIRTEL_FAILING_MSISDN = '752123901';
/** …904: the payment stays TIP, no callback (the enquiry keeps answering in progress). */
export const AIRTEL_IN_PROGRESS_MSISDN = '752123904';

const REASONS: Record<string, string> = { '901': 'INSUFFICIENT_FUNDS' };

/**
 * `settlesAfterMs`: when an ambiguous (TA) payment settles, in real ms after the request (the simulator's
 * live settings); the scenario waits that long for its callback before the timeout counts.
 */
function expectationFor(msisdn: string, amount: number, settlesAfterMs?: number): Expectation {
  const outcome = airtelOutcome(msisdn, amount);
  const what = `subscriber ${msisdn} (enquiry ${outcome.status} ${outcome.responseCode})`;
  if (outcome.callback === 'TS') return finalExpectation('TransactionSucceeded', what, 1);
  if (outcome.callback === 'TF') {
    return finalExpectation(
      'TransactionFailed',
      what,
      1,
      outcome.suffix ? REASONS[outcome.suffix] : undefined,
    );
  }
  if (outcome.settlesTo) {
    const after = settlesAfterMs === undefined ? 'later' : `after ${(settlesAfterMs / 1000).toFixed(0)} s`;
    return {
      ...finalExpectation('TransactionSucceeded', `${what}, settles to TS ${after}`, 1),
      summary: `${what} → no callback until it settles (${after}), then TransactionSucceeded`,
      settlesAfterMs,
    };
  }
  return {
    summary: `${what} → no callback: no event, the transaction stays PENDING (reconciliation would poll it)`,
    events: [],
    forbid: ['TransactionSucceeded', 'TransactionFailed', 'TransactionAmbiguous'],
    status: 'PENDING',
    deliveries: 0,
  };
}

export async function airtelPay(ctx: SimContext, options: ScenarioOptions): Promise<Started> {
  const account = accountOf<AirtelAccountSettings>(ctx, 'airtel', options.account);
  const info = await simulatorInfo(ctx);
  const clientId = airtelClientIdFor(ctx.config, account.id);
  const app = info.airtel.apps.find((a) => a.clientId === clientId);
  if (!app) {
    throw new ScenarioError(
      `the simulator has no Airtel app ${clientId} for airtel/${account.id}: start it with \`npm start -- --simulator\``,
    );
  }
  const msisdn = options.msisdn ?? AIRTEL_PAYING_MSISDN;
  const amount = options.amount ?? '1000';
  const currency = options.currency ?? account.settings.currency ?? 'UGX';
  const country = account.settings.country ?? 'UG';
  const expiresInSeconds = parseExpires(options.expires);
  const outcome = airtelOutcome(msisdn, Number(amount));
  // TA settles to TS (and calls back) a payer's answer plus ambiguousResolveMs (scaled) after the request.
  const settings = outcome.settlesTo ? await simulatorSettings(ctx) : undefined;
  const settlesAfterMs = settings
    ? settings.approvalDelayMs + settings.airtel.ambiguousResolveMs * settings.timeScale
    : undefined;
  let expectation = withFaults(
    expectationFor(msisdn, Number(amount), settlesAfterMs),
    parseFaults(options.fault),
    'airtel',
    'payment',
  );
  if (expiresInSeconds !== undefined && outcome.callback === null) {
    // TIP stays TIP; TA settles to TS after settlesAfterMs.
    expectation = withExpiry(expectation, expiresInSeconds, {
      what: `the enquiry keeps answering ${outcome.status}`,
      ...(settlesAfterMs !== undefined ? { settlesAfterMs } : {}),
    });
  } else {
    expectation = withExpiry(expectation, expiresInSeconds, undefined);
  }

  const token = await tokenStep(ctx, 'Airtel token', 'POST', simUrl(ctx, '/auth/oauth2/token'), {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_id: app.clientId,
      client_secret: app.clientSecret,
      grant_type: 'client_credentials',
    }),
  });
  const headers = {
    authorization: `Bearer ${token}`,
    'x-country': country,
    'x-currency': currency,
  };
  const keys = await httpStep<{ data: { key: string; key_id: number } }>(
    ctx,
    'RSA key for message signing',
    'GET',
    simUrl(ctx, '/v1/rsa/encryption-keys'),
    { headers, note: (a) => (a.body?.data?.key ? `key_id ${a.body.data.key_id}` : a.text) },
  );
  expectStatus(keys, [200], 'the encryption-keys request');
  const publicKey = required(keys.body?.data?.key, 'data.key');

  const reference = newReference('SIM-AT');
  await registerWithRelay(ctx, {
    provider: 'airtel',
    account: account.id,
    kind: 'payment',
    reference,
    amount,
    currency,
    msisdn,
    ...(expiresInSeconds === undefined ? {} : { expiresInSeconds }),
  });

  const signed = signAirtelRequest(
    {
      reference: 'Simulated order',
      subscriber: { country, currency, msisdn },
      transaction: { amount: Number(amount), country, currency, id: reference },
    },
    publicKey,
  );
  const payment = await httpStep<{
    status: { response_code: string };
    data: { transaction: { status: string } };
  }>(ctx, 'push payment (signed)', 'POST', simUrl(ctx, '/merchant/v2/payments/'), {
    headers: {
      ...headers,
      ...signed.headers,
      'content-type': 'application/json',
      ...(options.fault ? { 'x-sim-fault': options.fault } : {}),
    },
    body: signed.body,
    note: (a) =>
      a.body?.status
        ? `${a.body.status.response_code} ${a.body.data?.transaction?.status ?? ''} (in progress; the callback says how it ends)${options.fault ? `, X-Sim-Fault ${options.fault}` : ''}`
        : a.text,
  });
  expectStatus(payment, [200], 'the push payment');

  return {
    provider: 'airtel',
    account: account.id,
    reference,
    simReference: reference,
    description: `Airtel push payment ${amount} ${currency} from ${msisdn}; callbacks to ${app.callbackUrl ?? '(none set)'}`,
    expectation,
  };
}
