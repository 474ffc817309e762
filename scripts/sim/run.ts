/**
 * The scenarios of `npm run sim`, how one is run (start it, wait for its outcome, judge it) and how the
 * result is printed. The CLI (scripts/sim.ts) and the end-to-end tests both go through `runScenario`.
 */
import type { EventEnvelope } from '../../shared/domain/events';
import { summarizeEvent } from '../../shared/domain/outbox';
import { isFinal, type TransactionStatus } from '../../shared/domain/status';
import { providerRecordTimings } from '../../shared/config/schema';
import { DEFAULT_RELAY_PORT, DEFAULT_SIM_PORT } from '../../local/simulator-wiring';
import { DEFAULTS } from '../../simulator/options';
import { AIRTEL_FAILING_MSISDN, AIRTEL_IN_PROGRESS_MSISDN, airtelPay } from './airtel';
import {
  eventsOfTransaction,
  expectedEventsArrived,
  expectedStatus,
  verdictUnpublished,
  FINAL_EVENTS,
  judge,
  relayTransaction,
  type ScenarioOptions,
  ScenarioError,
  type SimCallback,
  type SimContext,
  type Started,
  simCallbacks,
} from './core';
import {
  B2C_QUEUE_TIMEOUT_PARTY_B,
  BALANCE_INITIATOR_INVALID_SHORT_CODE,
  BALANCE_QUEUE_TIMEOUT_SHORT_CODE,
  darajaB2b,
  darajaB2c,
  darajaBalance,
  darajaReversal,
  darajaC2b,
  darajaStk,
  STK_CANCELLING_PHONE,
  STK_UNREACHABLE_PHONE,
} from './daraja';
import { BADGE_ACTIONS } from './badges';
import type { FeedEvent } from './events';
import {
  MOMO_DELAYED_MSISDN,
  MOMO_EXPIRING_MSISDN,
  MOMO_REJECTING_MSISDN,
  momoPay,
  momoRefund,
} from './momo';

type OptionName = keyof ScenarioOptions;

export interface ScenarioDefinition {
  provider: 'momo' | 'airtel' | 'daraja';
  name: string;
  /** What it does, one line. */
  title: string;
  /** Options it reads (besides --account, --fault). */
  options: OptionName[];
  start(ctx: SimContext, options: ScenarioOptions): Promise<Started>;
}

export const SCENARIOS: readonly ScenarioDefinition[] = [
  {
    provider: 'momo',
    name: 'pay',
    title: 'request-to-pay (collection); the payer MSISDN picks the sandbox outcome',
    options: ['msisdn', 'amount', 'currency', 'expires'],
    start: momoPay,
  },
  {
    provider: 'momo',
    name: 'refund',
    title: "refund (disbursement); --external-id 1…13 picks the MoMo sandbox's refund outcome",
    options: ['externalId', 'amount', 'currency'],
    start: momoRefund,
  },
  {
    provider: 'airtel',
    name: 'pay',
    title: 'signed push payment; the last three digits of the MSISDN pick the outcome',
    options: ['msisdn', 'amount', 'currency', 'expires'],
    start: airtelPay,
  },
  {
    provider: 'daraja',
    name: 'stk',
    title: 'STK push (Lipa na M-Pesa online); the last four digits of the phone pick the ResultCode',
    options: ['phone', 'amount', 'shortCode', 'expires'],
    start: darajaStk,
  },
  {
    provider: 'daraja',
    name: 'c2b',
    title: "customer pays the account's short code: validation by the relay, then confirmation",
    options: ['msisdn', 'amount', 'billRef'],
    start: darajaC2b,
  },
  {
    provider: 'daraja',
    name: 'b2c',
    title: 'payout (B2C v3) with ResultURL and QueueTimeOutURL on the relay; PartyB picks the outcome',
    options: ['partyB', 'amount', 'shortCode', 'expires'],
    start: darajaB2c,
  },
  {
    provider: 'daraja',
    name: 'b2b',
    title: 'business payment (B2B) with ResultURL and QueueTimeOutURL on the relay; PartyB picks the outcome',
    options: ['partyB', 'amount', 'shortCode'],
    start: darajaB2b,
  },
  {
    provider: 'daraja',
    name: 'balance',
    title: "account balance query; the result (accounts parsed) on the relay's balance routes",
    options: ['shortCode'],
    start: darajaBalance,
  },
  {
    provider: 'daraja',
    name: 'reversal',
    title: 'an STK payment, then its reversal: TransactionReversed, the payment stays SUCCEEDED',
    options: ['phone', 'amount', 'shortCode', 'receipt'],
    start: darajaReversal,
  },
];

/** The documented examples: `--help`, the README and the end-to-end tests use this list. */
export interface Example {
  args: string[];
  what: string;
  produces: string;
}

const base = DEFAULTS.momo.sandboxMsisdnBase;
export const EXAMPLES: readonly Example[] = [
  { args: ['momo', 'pay'], what: 'paid', produces: 'TransactionSucceeded' },
  {
    args: ['momo', 'pay', '--msisdn', MOMO_REJECTING_MSISDN],
    what: `payer rejects (base ${base} + 1)`,
    produces: 'TransactionFailed, reason REJECTED_BY_CUSTOMER',
  },
  {
    args: ['momo', 'pay', '--msisdn', MOMO_EXPIRING_MSISDN],
    what: 'approval expired (base + 2)',
    produces: 'TransactionFailed, reason TIMED_OUT',
  },
  {
    args: ['momo', 'pay', '--fault', 'repeat=3'],
    what: 'the callback arrives 3 times',
    produces: 'one TransactionSucceeded',
  },
  {
    args: ['momo', 'refund'],
    what: 'refund paid, confirmed by its status GET',
    produces: 'TransactionSucceeded (origin poll)',
  },
  {
    args: ['momo', 'refund', '--external-id', '3'],
    what: 'refund rejected (trigger 3)',
    produces: 'TransactionFailed, reason REJECTED_BY_CUSTOMER',
  },
  { args: ['airtel', 'pay'], what: 'paid (TS)', produces: 'TransactionSucceeded' },
  {
    args: ['airtel', 'pay', '--msisdn', AIRTEL_FAILING_MSISDN],
    what: 'insufficient funds (…901, TF)',
    produces: 'TransactionFailed, reason INSUFFICIENT_FUNDS',
  },
  {
    args: ['airtel', 'pay', '--fault', 'corrupt-hash'],
    what: 'forged callback hash',
    produces: 'CallbackRejected (401), no verdict from the callback',
  },
  { args: ['daraja', 'stk'], what: 'paid', produces: 'TransactionSucceeded' },
  {
    args: ['daraja', 'stk', '--phone', STK_CANCELLING_PHONE],
    what: 'cancelled by the customer (…1032)',
    produces: 'TransactionFailed, reason REJECTED_BY_CUSTOMER',
  },
  {
    args: ['daraja', 'stk', '--phone', STK_UNREACHABLE_PHONE],
    what: 'phone unreachable, prompt timed out (…1037)',
    produces: 'TransactionFailed, reason UNREACHABLE',
  },
  {
    args: ['daraja', 'c2b', '--bill-ref', 'ACC-001', '--amount', '100'],
    what: 'accepted by the rules',
    produces: 'C2BValidationDecided accept + TransactionSucceeded (c2b)',
  },
  {
    args: ['daraja', 'c2b', '--amount', '999999'],
    what: 'rejected by the amount rule',
    produces: 'C2BValidationDecided reject C2B00013, no confirmation',
  },
  {
    args: ['daraja', 'c2b', '--account', 'demo-slow'],
    what: 'partner decision endpoint never answers',
    produces: 'C2BValidationDecided accept, deadlineApplied + TransactionSucceeded',
  },
  { args: ['daraja', 'b2c'], what: 'payout paid', produces: 'TransactionSucceeded' },
  {
    args: ['daraja', 'b2c', '--party-b', B2C_QUEUE_TIMEOUT_PARTY_B],
    what: 'queue timeout (…0408), no result',
    produces: 'TransactionAmbiguous, reason TIMED_OUT',
  },
  { args: ['daraja', 'b2b'], what: 'business payment paid', produces: 'TransactionSucceeded (kind b2b)' },
  {
    args: ['daraja', 'balance'],
    what: "the short code's accounts",
    produces: 'AccountBalanceReported (Working, Float, Utility, Charges Paid, Settlement)',
  },
  {
    args: ['daraja', 'balance', '--short-code', BALANCE_INITIATOR_INVALID_SHORT_CODE],
    what: 'invalid initiator (…2001)',
    produces: 'AccountBalanceFailed, reason NOT_ALLOWED (reasonDetail INVALID_INITIATOR)',
  },
  {
    args: ['daraja', 'balance', '--short-code', BALANCE_QUEUE_TIMEOUT_SHORT_CODE],
    what: 'queue timeout (…0408), no result',
    produces: 'AccountBalanceFailed, reason TIMED_OUT',
  },
  {
    args: ['daraja', 'reversal'],
    what: 'an STK payment, then its reversal',
    produces: 'TransactionSucceeded, then TransactionReversed (the payment stays SUCCEEDED)',
  },
  {
    args: ['daraja', 'reversal', '--receipt', 'NOSUCHRCPT'],
    what: 'a receipt nobody issued',
    produces: 'ReversalFailed, reason NOT_ALLOWED (R000002, reasonDetail INVALID_REQUEST)',
  },
];

/**
 * Outcomes that come from reconciliation (the relay's poller) rather than a callback: shown by `--help`,
 * kept apart from EXAMPLES (which the relay + simulator end-to-end tests run with provider time).
 */
export const RECONCILIATION_EXAMPLES: readonly Example[] = [
  {
    args: ['momo', 'pay', '--fault', 'drop'],
    what: 'the callback is dropped',
    produces: "TransactionSucceeded, origin poll (the relay's first status check)",
  },
  {
    args: ['daraja', 'stk', '--phone', STK_CANCELLING_PHONE, '--fault', 'drop'],
    what: 'cancelled, callback dropped',
    produces: 'TransactionFailed, origin poll',
  },
  {
    args: ['airtel', 'pay', '--msisdn', AIRTEL_IN_PROGRESS_MSISDN, '--expires', '15'],
    what: 'stays TIP (…904), 15 s window',
    produces: 'TransactionExpired after 15 s',
  },
  {
    args: ['momo', 'pay', '--msisdn', MOMO_DELAYED_MSISDN, '--expires', '15'],
    what: 'payer never answers (base + 4, Delayed), 15 s window',
    produces: 'TransactionExpired (the approval window ends later: a late TransactionFailed)',
  },
];

export function findScenario(provider: string, name: string): ScenarioDefinition {
  const found = SCENARIOS.find((s) => s.provider === provider && s.name === name);
  if (!found) {
    throw new ScenarioError(
      `unknown scenario "${[provider, name].filter(Boolean).join(' ')}"; scenarios: ${SCENARIOS.map((s) => `${s.provider} ${s.name}`).join(', ')}; also badge ${BADGE_ACTIONS.join('|')} and receiver (npm run sim -- --help)`,
    );
  }
  return found;
}

export interface ScenarioResult {
  started: Started;
  ok: boolean;
  /** What is wrong; empty when ok. */
  problems: string[];
  /** Events of this transaction published since the scenario began (CallbackRejected: of the account). */
  events: FeedEvent[];
  transaction: Awaited<ReturnType<typeof relayTransaction>>;
  /** What the simulator sent for this reference. */
  callbacks: SimCallback[];
  waitedMs: number;
  /** Set when the wait ended early, before its deadline, with the outcome not as expected. */
  stoppedBecause?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs one scenario: start it, wait (bounded) for its outcome, let the relay publish, judge. */
export async function runScenario(
  ctx: SimContext,
  provider: string,
  name: string,
  options: ScenarioOptions = {},
): Promise<ScenarioResult> {
  const definition = findScenario(provider, name);
  const started = await definition.start(ctx, options);
  ctx.onStarted?.(started);
  const x = started.expectation;
  const mine = (feed: FeedEvent[]) => {
    const envelopes = eventsOfTransaction(
      feed.map((f) => f.envelope),
      started.provider,
      started.account,
      started.reference,
    );
    return feed.filter((f) => envelopes.includes(f.envelope));
  };

  const arrived = async () =>
    expectedEventsArrived(
      mine(await ctx.events.read()).map((f) => f.envelope),
      x,
    );
  const sentSoFar = async () =>
    x.deliveries ? (await simCallbacks(ctx, started.provider, started.simReference)).length : 0;

  const begun = Date.now();
  let deadline = begun + ctx.timeoutMs;
  const relayView = () =>
    x.noTransaction
      ? Promise.resolve(undefined)
      : relayTransaction(ctx, started.provider, started.account, started.reference);
  if (x.waitFor === 'pull' && ctx.extendTimeout) {
    // A row is pulled once it is older than the pull's grace, by the next pull after that: at most one
    // (scaled) pull interval plus the grace from now. The default timeout counts from then.
    const { pullIntervalSeconds } = providerRecordTimings(
      ctx.config.providerRecords,
      started.provider,
      started.account,
    );
    const { pullGraceSeconds } = ctx.config.providerRecords;
    deadline = Math.max(
      deadline,
      begun +
        (pullIntervalSeconds + pullGraceSeconds) * ctx.config.reconciliation.timeScale * 1000 +
        ctx.timeoutMs,
    );
  } else if (x.waitFor && ctx.extendTimeout) {
    // The default timeout counts from the relay's first status check (drop) or the window's end (expires).
    const r = (await relayView())?.reconciliation;
    const from = x.waitFor === 'poll' ? r?.nextCheckAt : r?.reconcileUntil;
    if (from) deadline = Math.max(deadline, Date.parse(from) + ctx.timeoutMs);
  }
  // An outcome the provider settles by itself later (Airtel TA): the default timeout counts from then.
  if (x.settlesAfterMs !== undefined && ctx.extendTimeout)
    deadline = Math.max(deadline, begun + x.settlesAfterMs + ctx.timeoutMs);
  // A delayed callback (`--fault delay=N`) comes N ms late: the default timeout counts from then.
  const delayMs = Number(/(?:^|,)delay=(\d+)/.exec(options.fault ?? '')?.[1] ?? 0);
  if (delayMs && ctx.extendTimeout) deadline = Math.max(deadline, begun + delayMs + ctx.timeoutMs);
  let timedOut = false;
  /** Why the wait ended before its deadline with the outcome not as expected (printed with the summary). */
  let stoppedBecause: string | undefined;
  /** Consecutive looks at which the relay had nothing more to say (see below). */
  let quietLooks = 0;
  while (x.refusedWith === undefined) {
    const allSent = (await sentSoFar()) >= (x.deliveries ?? 0);
    if (allSent && (await arrived())) break;
    // The relay has answered everything the simulator will send, and it stores before it answers: once
    // its stream is published, what is there is the outcome (waiting longer would not change it) — unless
    // reconciliation still has a say: the outcome is expected from it, or the relay will check the
    // transaction before the deadline (an unsigned MoMo success is confirmed by a status call at once).
    if (x.deliveries && allSent && !x.waitFor) {
      await ctx.events.settle();
      if (await arrived()) continue;
      const view = await relayView();
      const next = view?.reconciliation?.nextCheckAt;
      // A verdict the relay has reached (its status check ran just now) is published from its stream a
      // moment later: wait for that event rather than judge without it (until the deadline, as ever).
      const verdictUnpublished =
        view !== undefined &&
        isFinal(view.status as TransactionStatus) &&
        x.events.some((e) => FINAL_EVENTS.includes(e.type));
      // One look can fall between two writes of a status check (its answer applied, its event not yet
      // in the stream): judge only when two looks a poll interval apart agree.
      if (!verdictUnpublished && (!next || Date.parse(next) > deadline)) {
        quietLooks++;
        if (quietLooks >= 2) {
          stoppedBecause = `the relay had nothing due before the deadline (status ${view?.status ?? 'unknown'}, next check ${next ?? 'none'})`;
          break;
        }
      } else quietLooks = 0;
    }
    if (Date.now() >= deadline) {
      timedOut = true;
      break;
    }
    ctx.onProgress?.();
    await sleep(ctx.pollMs);
  }
  const waitedMs = Date.now() - begun;
  // Whatever else the relay wrote by now (a duplicate's event, an orphan notice) is published too.
  let events: FeedEvent[];
  let transaction: Awaited<ReturnType<typeof relayTransaction>>;
  const settleBy = Math.max(deadline, Date.now() + ctx.timeoutMs);
  for (;;) {
    await ctx.events.settle();
    events = mine(await ctx.events.read());
    transaction = x.noTransaction
      ? undefined
      : await relayTransaction(ctx, started.provider, started.account, started.reference);
    // The relay can reach a verdict between the two reads (its status check, where it may decide): its
    // event is published a moment later. Waited for (never judged half-seen), until the deadline.
    const envelopes = events.map((e) => e.envelope);
    const halfSeen =
      (x.pollMayDecide && transaction !== undefined && transaction.status !== expectedStatus(x, envelopes)) ||
      verdictUnpublished(x, envelopes, transaction?.status);
    if (!halfSeen || Date.now() >= settleBy) break;
    await sleep(ctx.pollMs);
  }
  const callbacks = await simCallbacks(ctx, started.provider, started.simReference);

  const problems = judge(
    x,
    events.map((e) => e.envelope),
    transaction?.status,
  );
  if (x.refusedWith !== undefined && started.refusedWith !== x.refusedWith) {
    problems.unshift(
      `expected the provider to refuse the request with HTTP ${x.refusedWith}, it answered ${started.refusedWith ?? 'with success'}`,
    );
  }
  if (timedOut) {
    const sent = x.deliveries ? `, ${callbacks.length}/${x.deliveries} simulator calls sent` : '';
    problems.unshift(`gave up after ${Math.round((Date.now() - begun) / 1000)} s (--timeout)${sent}`);
  }
  return {
    started,
    ok: problems.length === 0,
    problems,
    events,
    transaction,
    callbacks,
    waitedMs,
    stoppedBecause: problems.length ? stoppedBecause : undefined,
  };
}

// ---- printing ----------------------------------------------------------------------------------------

export function formatSummary(
  result: ScenarioResult,
  options: { raw: boolean; eventsLabel: string },
): string {
  const { started, events, transaction, callbacks } = result;
  const lines: string[] = [];
  lines.push(
    `  waited ${(result.waitedMs / 1000).toFixed(1)} s${result.stoppedBecause ? `: stopped, ${result.stoppedBecause}` : ''}`,
  );
  lines.push('', `Simulator calls for ${started.simReference}:`);
  if (callbacks.length === 0) lines.push('  (none)');
  for (const c of callbacks) {
    const tags = c.tags.length ? ` [${c.tags.join(', ')}]` : '';
    lines.push(`  ${c.kind} ${c.summary ?? ''}${tags}: ${c.method} ${c.url}`);
    const body = (c.responseBody ?? '').replace(/\s+/g, ' ').slice(0, 140);
    lines.push(`    → ${c.status ?? c.outcome} ${body}`);
  }
  lines.push('', `Relay transaction ${started.provider}/${started.account}/${started.reference}:`);
  if (!transaction && started.expectation.noTransaction)
    lines.push(
      `  (none: ${started.expectation.noTransactionNote ?? 'a payment the validation rejected never becomes a transaction'})`,
    );
  else if (!transaction) lines.push('  (none: the relay has no transaction for this reference)');
  else {
    const history = transaction.history.map((h) => h.type).join(', ');
    lines.push(
      `  status ${transaction.status}${transaction.reason ? `, reason ${transaction.reason.code}` : ''}; history: ${history}`,
    );
  }
  lines.push('', `New events in ${options.eventsLabel}:`);
  if (events.length === 0) lines.push('  (none)');
  for (const e of events) {
    lines.push(`  ${summarizeEvent(e.envelope)}${details(e.envelope)}`);
    if (options.raw) lines.push(`    ${e.line}`);
  }
  lines.push('');
  if (result.ok) lines.push(`✔ as expected: ${started.expectation.summary}`);
  else {
    lines.push(`✖ not as expected: ${started.expectation.summary}`);
    for (const p of result.problems) lines.push(`  - ${p}`);
  }
  return lines.join('\n');
}

/** What the one-line summary leaves out of the events whose point is in their details. */
function details(event: EventEnvelope): string {
  const d = event.data as Record<string, unknown>;
  if (event.metadata.type === 'C2BValidationDecided') {
    return ` resultCode=${d.resultCode} rule=${d.rule} deadlineApplied=${d.deadlineApplied} elapsedMs=${d.elapsedMs}/${d.deadlineMs}`;
  }
  if (event.metadata.type === 'CallbackRejected') return ` httpStatus=${d.httpStatus} route=${d.route}`;
  return '';
}

export function helpText(): string {
  return [
    'Usage: npm run sim -- <provider> <scenario> [options]',
    '',
    'The partner side of an integration, against `npm start -- --simulator`: gets a provider token from the',
    'simulator, initiates the operation with its provider API, registers the transaction with the relay,',
    'waits for the outcome and prints the steps, the HTTP answers, the simulator callbacks and the new',
    'events in the events file. Exit code 0 when the outcome is the expected one, 1 otherwise.',
    '',
    'Scenarios:',
    ...SCENARIOS.map(
      (s) =>
        `  ${`${s.provider} ${s.name}`.padEnd(12)} ${s.title}\n${' '.repeat(15)}options: ${[...s.options.map(flagOf), '--account', '--fault'].join(' ')}`,
    ),
    `  ${'badge'.padEnd(12)} create | update | delete | expire: one change on the simulator's badge API (cpbw/v1),`,
    `${' '.repeat(15)}then the Badge* event the relay's badge feed made of it. options: --badge <id> (default: the newest)`,
    `  ${'receiver'.padEnd(12)} a sample partner endpoint for webhook destinations (docs/webhooks.md): verifies each`,
    `${' '.repeat(15)}delivery with the standardwebhooks library and prints it. options: --port <p> (4000),`,
    `${' '.repeat(15)}--fault slow|500|410|429|tls, --failures <n>, --delay-ms <ms>, --retry-after <s>, --secret whsec_…`,
    '',
    'Examples (each prints and checks the events it produces):',
    ...EXAMPLES.map((e) => `  npm run sim -- ${e.args.join(' ')}\n      ${e.what} → ${e.produces}`),
    '',
    "Outcomes from reconciliation (the relay's poller, with `npm start -- --simulator`):",
    ...RECONCILIATION_EXAMPLES.map(
      (e) => `  npm run sim -- ${e.args.join(' ')}\n      ${e.what} → ${e.produces}`,
    ),
    '',
    'Options:',
    '  --msisdn <n>      payer (MoMo: sandbox base + index picks the outcome; Airtel: last 3 digits; C2B: payer)',
    '  --phone <n>       STK phone, 2547XXXXXXXX (last 4 digits pick the ResultCode)',
    '  --party-b <n>     B2C receiver (…0408 queue timeout, …2001 / …0001 failures)',
    '  --amount <n>      amount (defaults: MoMo 100, Airtel 1000, STK 1, C2B 100, B2C 10)',
    "  --currency <c>    MoMo / Airtel currency (default: the account's)",
    '  --bill-ref <ref>  C2B BillRefNumber (default ACC-001)',
    "  --short-code <n>  STK BusinessShortCode (default 174379) / B2C PartyA (default: the account's)",
    '  --account <id>    relay account (default demo; demo-slow: C2B partner endpoint that never answers)',
    '  --fault <spec>    X-Sim-Fault on the initiating request: repeat=N, drop, delay=MS, stale-after-final,',
    '                    corrupt-hash (Airtel), foreign-ip (Daraja), … (simulator/README.md#faults).',
    "                    drop: the outcome is then expected from the relay's status check (origin poll)",
    "  --expires <s>     registration expiresInSeconds: the transaction's reconciliation window. An outcome",
    '                    that never finalizes (Airtel …904, MoMo base + 3/+4 within the approval window) is',
    '                    then expected to end EXPIRED (TransactionExpired) when the window ends',
    `  --relay <url>     relay (default http://localhost:$PORT, as npm start reads it, else :${DEFAULT_RELAY_PORT})`,
    `  --sim <url>       simulator (default http://127.0.0.1:$SIM_PORT, as npm start reads it, else :${DEFAULT_SIM_PORT})`,
    '  --token <t>       management bearer token (default demo-admin-token)',
    '  --config <file>   the relay config, for account settings (default RELAY_CONFIG or local/demo-config.json)',
    '  --events <file>   events file (default: local.eventsFile of the config, .relay/events.ndjson)',
    '  --timeout <s>     how long to wait for the outcome (default 20; with --fault drop counted from the',
    "                    relay's first status check, with --expires from the window's end, for an outcome",
    '                    the provider settles later, e.g. Airtel …903, from when it settles)',
    '  --brief           event summaries only, without the raw JSON lines',
    '',
  ].join('\n');
}

const FLAGS: Record<OptionName, string> = {
  account: '--account',
  msisdn: '--msisdn',
  phone: '--phone',
  amount: '--amount',
  currency: '--currency',
  billRef: '--bill-ref',
  partyB: '--party-b',
  shortCode: '--short-code',
  fault: '--fault',
  expires: '--expires',
  receipt: '--receipt',
  externalId: '--external-id',
};

export function flagOf(option: OptionName): string {
  return FLAGS[option];
}
