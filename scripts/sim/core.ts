/**
 * What every `npm run sim` scenario shares: the context (relay, simulator, config, events), HTTP calls that
 * are recorded as steps, registration with the relay, and the expectation a scenario is checked against.
 */
import type { RelayConfig, ResolvedAccount } from '../../shared/config/schema';
import type { EventEnvelope } from '../../shared/domain/events';
import type { SimulatorInfo } from '../../simulator/server';
import type { EventFeed } from './events';

export interface SimContext {
  /** Where the relay listens (management API and callback routes). */
  relayUrl: string;
  /** Where the simulator listens. */
  simUrl: string;
  /** The relay's management bearer token. */
  adminToken: string;
  /** The relay's config: accounts and their settings. */
  config: RelayConfig;
  events: EventFeed;
  /** How long to wait for the outcome. */
  timeoutMs: number;
  /** Pause between two looks at the outcome. */
  pollMs: number;
  /** Called with each step as it completes. */
  onStep?(step: Step): void;
  /** Called once the operation is started, before waiting for its outcome. */
  onStarted?(started: Started): void;
  /** Called while waiting (one dot per look). */
  onProgress?(): void;
  /**
   * `timeoutMs` is the default, not the user's choice: a scenario whose outcome comes from reconciliation
   * (`--fault drop`, `--expires`) waits that long after the relay's first check or the window's end.
   */
  extendTimeout?: boolean;
}

export interface Step {
  title: string;
  method: string;
  url: string;
  status: number | undefined;
  /** The interesting part of the answer, one line. */
  note: string;
}

/** An HTTP answer; `body` is the parsed JSON, typed as what the caller expects (unchecked: read defensively). */
export interface HttpAnswer<T = Record<string, unknown>> {
  status: number;
  text: string;
  body: Partial<T> | undefined;
}

/** Thrown when a step fails in a way the scenario did not expect; the CLI prints it and exits 1. */
export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioError';
  }
}

/** Options a scenario takes from the command line; each scenario says which ones it reads. */
export interface ScenarioOptions {
  account?: string;
  msisdn?: string;
  phone?: string;
  amount?: string;
  currency?: string;
  billRef?: string;
  partyB?: string;
  shortCode?: string;
  fault?: string;
  /** Registration `expiresInSeconds`: the transaction's reconciliation window, in seconds. */
  expires?: string;
  /** Daraja reversal: the receipt to reverse (default: a fresh STK payment's). */
  receipt?: string;
  /** MoMo refund: the externalId, the MoMo sandbox's trigger ("1" … "13"). */
  externalId?: string;
}

export interface ExpectedEvent {
  type: string;
  /** The event's `metadata.origin` (`callback`, `poll`, …); undefined: any. */
  origin?: string;
  /** Fields of `data` that must be equal. */
  data?: Record<string, unknown>;
  /** Further check on `data`; returns what is wrong, or undefined. */
  check?(data: Record<string, unknown>): string | undefined;
}

export interface Expectation {
  /** What should happen, for people: "TransactionFailed, reason REJECTED_BY_CUSTOMER". */
  summary: string;
  /** Events that must be published for this transaction, each exactly once (CallbackRejected: at least once). */
  events: ExpectedEvent[];
  /** Event types that must not be published for this transaction. */
  forbid?: string[];
  /**
   * `forbid` and `status` speak of what the faulted callback does (forged, from outside the allow-list,
   * dropped): a verdict from it is what the fault tests. The relay's own status check keeps running
   * meanwhile and may reach a verdict first (origin `poll`): that is reconciliation working, not the fault
   * getting through, so it is accepted and the expected status becomes its status.
   */
  pollMayDecide?: true;
  /** Exactly one event of one of these types (the outcome is the provider's to tell, e.g. any reversal result). */
  oneOf?: string[];
  /** The relay's status of the transaction at the end; undefined: not checked. */
  status?: string;
  /** Simulator calls for this reference (callbacks, validations, notices) to wait for before judging. */
  deliveries?: number;
  /** The provider refuses the request synchronously with this HTTP status: nothing is sent afterwards. */
  refusedWith?: number;
  /** The relay keeps no transaction for it (a rejected C2B payment): not looked up. */
  noTransaction?: true;
  /** Why there is none, for people (default: the rejected C2B payment's reason). */
  noTransactionNote?: string;
  /**
   * The outcome comes from reconciliation, not from a callback: `poll` (the first status check, e.g. the
   * callback was dropped), `expiry` (the window ends, TransactionExpired), `pull` (the provider's records:
   * the account's next pull finds a C2B payment whose confirmation was dropped). Waited for past the deliveries.
   */
  waitFor?: 'poll' | 'expiry' | 'pull';
  /**
   * The provider settles it by itself this many real ms after the request (Airtel's ambiguous TA turns TS):
   * the default timeout counts from then, and the outcome is waited for, not guessed after a fixed time.
   */
  settlesAfterMs?: number;
}

/** What a provider module did to start a scenario; `runScenario` waits and judges from here. */
export interface Started {
  provider: string;
  account: string;
  /** The relay's reference of the transaction (MoMo X-Reference-Id, CheckoutRequestID, TransID, …). */
  reference: string;
  /** The simulator's id of the operation, for its callback log (usually the same as `reference`). */
  simReference: string;
  /** One line: what was started. */
  description: string;
  expectation: Expectation;
  /** Set when the provider refused the request (see Expectation.refusedWith). */
  refusedWith?: number;
}

export interface SimCallback {
  kind: string;
  method: string;
  url: string;
  outcome: string;
  status?: number;
  responseBody?: string;
  summary?: string;
  tags: string[];
}

export const FINAL_EVENTS = ['TransactionSucceeded', 'TransactionFailed', 'TransactionExpired'];

/** The status each verdict event leaves its transaction in. */
const VERDICT_STATUS: Record<string, string> = {
  TransactionSucceeded: 'SUCCEEDED',
  TransactionFailed: 'FAILED',
  TransactionExpired: 'EXPIRED',
  TransactionAmbiguous: 'AMBIGUOUS',
};

/**
 * The relay's transaction is in a verdict the expectation names an event for, and no such event has been
 * read: the write is there, its event is published from the stream a moment later.
 */
export function verdictUnpublished(
  expectation: Expectation,
  events: EventEnvelope[],
  status: string | undefined,
): boolean {
  if (status === undefined) return false;
  const named = (type: string) => VERDICT_STATUS[type] === status;
  return expectation.events.some((e) => named(e.type)) && !events.some((e) => named(e.metadata.type));
}

/**
 * The status expected at the end: the expectation's, or, where the relay's own status check may decide
 * (Expectation.pollMayDecide), the status its last verdict left.
 */
export function expectedStatus(expectation: Expectation, events: EventEnvelope[]): string | undefined {
  if (!expectation.pollMayDecide) return expectation.status;
  const polled = events.filter((e) => e.metadata.origin === 'poll' && VERDICT_STATUS[e.metadata.type]);
  const last = polled.at(-1);
  return last ? VERDICT_STATUS[last.metadata.type] : expectation.status;
}

const trim = (url: string) => url.replace(/\/$/, '');

function shorten(text: string, max = 110): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * One HTTP call, recorded as a step. `note` picks what to show from the answer; by default a short
 * rendering of the body.
 */
export async function httpStep<T = Record<string, unknown>>(
  ctx: SimContext,
  title: string,
  method: string,
  url: string,
  init: { headers?: Record<string, string>; body?: string; note?: (a: HttpAnswer<T>) => string } = {},
): Promise<HttpAnswer<T>> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: init.headers ?? {},
      ...(init.body === undefined ? {} : { body: init.body }),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const step = {
      title,
      method,
      url,
      status: undefined,
      note: `no answer (${cause ?? (error as Error).message})`,
    };
    ctx.onStep?.(step);
    throw new ScenarioError(
      `${title}: ${method} ${url} got no answer (${cause ?? (error as Error).message}). ${await whatRuns(ctx, url)}`,
    );
  }
  const text = await response.text();
  let body: Partial<T> | undefined;
  try {
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (parsed !== null && typeof parsed === 'object') body = parsed as Partial<T>;
  } catch {
    // not JSON: only `text`
  }
  const answer: HttpAnswer<T> = { status: response.status, text, body };
  ctx.onStep?.({
    title,
    method,
    url,
    status: response.status,
    note: shorten(init.note ? init.note(answer) : text),
  });
  return answer;
}

/** A value the provider's answer must carry; fails the scenario naming it otherwise. */
export function required<V>(value: V | null | undefined, what: string): V {
  if (value === undefined || value === null || value === '')
    throw new ScenarioError(`the answer carries no ${what}`);
  return value;
}

interface TokenAnswer {
  access_token: string;
}

/** The access token of a token answer, shortened for the step line. */
export function tokenNote(a: HttpAnswer<TokenAnswer>): string {
  return a.body?.access_token ? `access_token ${String(a.body.access_token).slice(0, 16)}…` : a.text;
}

/** Gets a token: the step, its status check and the token itself. */
export async function tokenStep(
  ctx: SimContext,
  title: string,
  method: string,
  url: string,
  init: { headers?: Record<string, string>; body?: string },
): Promise<string> {
  const answer = await httpStep<TokenAnswer>(ctx, title, method, url, { ...init, note: tokenNote });
  expectStatus(answer, [200], `the ${title} request`);
  return required(answer.body?.access_token, 'access_token');
}

/** Fails the scenario unless the answer has one of the given statuses. */
export function expectStatus(answer: HttpAnswer<unknown>, statuses: number[], what: string): void {
  if (!statuses.includes(answer.status)) {
    throw new ScenarioError(`${what} answered HTTP ${answer.status}: ${shorten(answer.text, 300)}`);
  }
}

/**
 * What to do when a call got no answer: a relay started without `--simulator` answers while the simulator
 * does not, the mistake a new user makes after a plain `npm start`.
 */
async function whatRuns(ctx: SimContext, unanswered: string): Promise<string> {
  const elsewhere = '(--relay / --sim to point elsewhere)';
  if (!unanswered.startsWith(trim(ctx.simUrl)))
    return `Is \`npm start -- --simulator\` running? ${elsewhere}`;
  const relayAnswers = await fetch(relayUrl(ctx, '/health'), { signal: AbortSignal.timeout(2000) }).then(
    (r) => r.ok,
    () => false,
  );
  return relayAnswers
    ? `The relay at ${ctx.relayUrl} answers, but no simulator: it was started without --simulator. Stop it (Ctrl-C) and start \`npm start -- --simulator\`. ${elsewhere}`
    : `Is \`npm start -- --simulator\` running? ${elsewhere}`;
}

export function simUrl(ctx: SimContext, path: string): string {
  return `${trim(ctx.simUrl)}${path}`;
}

export function relayUrl(ctx: SimContext, path: string): string {
  return `${trim(ctx.relayUrl)}${path}`;
}

/** The simulator's credentials and settings (`GET /_sim/info`): what a partner reads off the portal. */
export async function simulatorInfo(ctx: SimContext): Promise<SimulatorInfo> {
  const answer = await httpStep<SimulatorInfo>(
    ctx,
    'simulator credentials',
    'GET',
    simUrl(ctx, '/_sim/info'),
    {
      note: () => 'credentials, passkeys, MSISDN base',
    },
  );
  expectStatus(answer, [200], 'the simulator');
  const info = answer.body;
  if (!info?.momo || !info.airtel || !info.daraja)
    throw new ScenarioError('GET /_sim/info: not a simulator answer');
  return info as SimulatorInfo;
}

/** The simulator's runtime settings (`GET /_sim/config`): its time scale and the MoMo approval window. */
export interface SimulatorSettings {
  timeScale: number;
  approvalDelayMs: number;
  momo: { approvalWindowMs: number };
  airtel: { ambiguousResolveMs: number };
}

export async function simulatorSettings(ctx: SimContext): Promise<SimulatorSettings> {
  const answer = await httpStep<SimulatorSettings>(
    ctx,
    'simulator settings',
    'GET',
    simUrl(ctx, '/_sim/config'),
    {
      note: (a) => (a.body?.timeScale !== undefined ? `time scale ${a.body.timeScale}` : a.text),
    },
  );
  expectStatus(answer, [200], 'the simulator');
  const body = answer.body;
  if (
    typeof body?.timeScale !== 'number' ||
    typeof body.approvalDelayMs !== 'number' ||
    typeof body.momo?.approvalWindowMs !== 'number' ||
    typeof body.airtel?.ambiguousResolveMs !== 'number'
  )
    throw new ScenarioError('GET /_sim/config: not a simulator answer');
  return body as SimulatorSettings;
}

export function accountOf<S = Record<string, unknown>>(
  ctx: SimContext,
  provider: string,
  accountId: string | undefined,
): ResolvedAccount & { settings: S } {
  const id = accountId ?? 'demo';
  const account = ctx.config.accounts.get(`${provider}/${id}`);
  if (!account) {
    const known = [...ctx.config.accounts.values()].filter((a) => a.provider === provider).map((a) => a.id);
    throw new ScenarioError(
      `the relay config has no ${provider} account "${id}" (${known.length ? `known: ${known.join(', ')}` : 'none configured'}); --config names the relay's config`,
    );
  }
  return account as ResolvedAccount & { settings: S };
}

export interface Registration {
  provider: string;
  account: string;
  kind: string;
  reference: string;
  amount?: string;
  currency?: string;
  msisdn?: string;
  externalId?: string;
  /** The reconciliation window of this transaction (default: the provider's, days). */
  expiresInSeconds?: number;
}

/**
 * Times a partner sends a request again that the relay answered 503 ("could not store the request right
 * now … send it again later": a loaded DynamoDB), waiting `pollMs` × 2, 4, 8 between: the money may
 * already have moved at the provider, and a partner that gave up would leave the relay without the payment.
 */
const RELAY_BUSY_RETRIES = 3;

async function untilStored<A extends { status: number }>(ctx: SimContext, ask: () => Promise<A>): Promise<A> {
  for (let attempt = 1; ; attempt++) {
    const answer = await ask();
    if (answer.status !== 503 || attempt > RELAY_BUSY_RETRIES) return answer;
    await new Promise((resolve) => setTimeout(resolve, ctx.pollMs * 2 ** attempt));
  }
}

/** `POST /v1/transactions`: what the partner does right after initiating an operation with the provider. */
export async function registerWithRelay(
  ctx: SimContext,
  registration: Registration,
): Promise<{ callbackUrl?: string; status: string }> {
  // An identical registration again is answered 200 (docs/management-api.md): safe to send again.
  const answer = await untilStored(ctx, () =>
    httpStep<{ transaction: { status: string }; callbackUrl?: string }>(
      ctx,
      'register with the relay',
      'POST',
      relayUrl(ctx, '/v1/transactions'),
      {
        headers: { authorization: `Bearer ${ctx.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(registration),
        note: (a) =>
          a.body?.transaction
            ? `${a.body.transaction.status}${a.body.callbackUrl ? `, callbackUrl ${a.body.callbackUrl}` : ''}`
            : a.text,
      },
    ),
  );
  expectStatus(answer, [200, 201], 'the relay registration');
  return { callbackUrl: answer.body?.callbackUrl, status: answer.body?.transaction?.status ?? 'unknown' };
}

/** The relay's view of a transaction (`GET /v1/transactions/...`), or undefined when it has none. */
export interface RelayTransactionView {
  status: string;
  providerTransactionId?: string | null;
  reason: { code: string } | null;
  history: { type: string }[];
  /** When the poller looks next (null once final), the window's end, how many status calls were made. */
  reconciliation?: { statusChecks: number; nextCheckAt: string | null; reconcileUntil: string };
}

export async function relayTransaction(
  ctx: SimContext,
  provider: string,
  account: string,
  reference: string,
): Promise<RelayTransactionView | undefined> {
  const path = `/v1/transactions/${provider}/${encodeURIComponent(account)}/${encodeURIComponent(reference)}`;
  const response = await untilStored(ctx, () =>
    fetch(relayUrl(ctx, path), { headers: { authorization: `Bearer ${ctx.adminToken}` } }),
  );
  if (response.status === 404) return undefined;
  if (!response.ok) throw new ScenarioError(`GET ${path} answered HTTP ${response.status}`);
  const body = (await response.json()) as {
    transaction: Omit<RelayTransactionView, 'history' | 'reconciliation'>;
    history: { type: string }[];
    reconciliation?: RelayTransactionView['reconciliation'];
  };
  return { ...body.transaction, history: body.history, reconciliation: body.reconciliation };
}

/** What the simulator sent for a reference (`GET /_sim/callbacks`). */
export async function simCallbacks(
  ctx: SimContext,
  provider: string,
  reference: string,
): Promise<SimCallback[]> {
  const query = new URLSearchParams({ provider, reference });
  const response = await fetch(simUrl(ctx, `/_sim/callbacks?${query}`));
  if (!response.ok) throw new ScenarioError(`GET /_sim/callbacks answered HTTP ${response.status}`);
  return (await response.json()) as SimCallback[];
}

/** Events of one transaction; CallbackRejected carries no reference, so those of the account count too. */
export function eventsOfTransaction(
  events: EventEnvelope[],
  provider: string,
  account: string,
  reference: string,
): EventEnvelope[] {
  return events.filter((e) => {
    const d = e.data as { provider?: string; account?: string; reference?: string };
    if (d.provider !== provider || d.account !== account) return false;
    // Facts are correlated by their request id too (a balance names no transaction; a reversal of a
    // receipt given by hand names the payment the scenario does not know).
    return (
      e.metadata.type === 'CallbackRejected' ||
      d.reference === reference ||
      e.metadata.correlationId === `${provider}:${account}:${reference}` ||
      (d as { originatorConversationId?: string }).originatorConversationId === reference
    );
  });
}

function matches(event: EventEnvelope, expected: ExpectedEvent): boolean {
  if (event.metadata.type !== expected.type) return false;
  if (expected.origin !== undefined && event.metadata.origin !== expected.origin) return false;
  const data = event.data as Record<string, unknown>;
  return Object.entries(expected.data ?? {}).every(([k, v]) => JSON.stringify(data[k]) === JSON.stringify(v));
}

/**
 * Whether an event of every expected type is there (used to stop waiting). Types only: an event with other
 * details than expected will not be followed by the right one, and `judge` says what differs.
 */
export function expectedEventsArrived(events: EventEnvelope[], expectation: Expectation): boolean {
  return (
    expectation.events.every((x) => events.some((e) => e.metadata.type === x.type)) &&
    (!expectation.oneOf || events.some((e) => expectation.oneOf!.includes(e.metadata.type)))
  );
}

/** Everything that is wrong with the outcome; empty when it is as expected. */
export function judge(
  expectation: Expectation,
  events: EventEnvelope[],
  status: string | undefined,
): string[] {
  const problems: string[] = [];
  for (const expected of expectation.events) {
    const found = events.filter((e) => matches(e, expected));
    const fields = expected.data ? ` with ${JSON.stringify(expected.data)}` : '';
    const origin = expected.origin ? ` (origin ${expected.origin})` : '';
    if (found.length === 0) {
      const sameType = events.filter((e) => e.metadata.type === expected.type);
      const got = sameType[0]
        ? {
            ...pick(sameType[0].data, Object.keys(expected.data ?? {})),
            ...(expected.origin ? { origin: sameType[0].metadata.origin } : {}),
          }
        : undefined;
      problems.push(
        got
          ? `${expected.type} arrived but not${fields}${origin} (got ${JSON.stringify(got)})`
          : `no ${expected.type}${fields}${origin}`,
      );
      continue;
    }
    if (found.length > 1 && expected.type !== 'CallbackRejected') {
      problems.push(`${found.length} ${expected.type} events, expected exactly one`);
    }
    const wrong = expected.check?.(found[0]!.data as Record<string, unknown>);
    if (wrong) problems.push(`${expected.type}: ${wrong}`);
  }
  if (expectation.oneOf) {
    const found = events.filter((e) => expectation.oneOf!.includes(e.metadata.type));
    if (found.length !== 1)
      problems.push(
        `${found.length} events of ${expectation.oneOf.join(' / ')}${found.length ? ` (${found.map((e) => e.metadata.type).join(', ')})` : ''}, expected exactly one`,
      );
  }
  for (const type of expectation.forbid ?? []) {
    const n = events.filter(
      (e) => e.metadata.type === type && !(expectation.pollMayDecide && e.metadata.origin === 'poll'),
    ).length;
    const from = expectation.pollMayDecide ? " not from the relay's status check" : '';
    if (n) problems.push(`unexpected ${type}${from}${n > 1 ? ` (×${n})` : ''}`);
  }
  // TransactionExpired then a provider's final answer flagged lateResolution is one verdict, resolved late.
  const resolvedLate = events.some((e) => (e.data as { lateResolution?: unknown }).lateResolution === true);
  const finals = events.filter(
    (e) =>
      FINAL_EVENTS.includes(e.metadata.type) && !(resolvedLate && e.metadata.type === 'TransactionExpired'),
  );
  if (finals.length > 1) {
    problems.push(
      `${finals.length} final events (${finals.map((e) => e.metadata.type).join(', ')}), expected at most one`,
    );
  }
  const expected = expectedStatus(expectation, events);
  if (expected !== undefined && status !== expected) {
    problems.push(`the relay's transaction is ${status ?? 'unknown'}, expected ${expected}`);
  }
  return problems;
}

function pick(data: unknown, keys: string[]): Record<string, unknown> {
  const record = data as Record<string, unknown>;
  return Object.fromEntries(keys.map((k) => [k, record[k]]));
}

/** A reference nobody else uses: `SIM-<time>-<random>` (letters, digits and dashes). */
export function newReference(prefix: string): string {
  return `${prefix}-${Date.now().toString(36).toUpperCase()}-${Math.random().toString(36).slice(2, 7).toUpperCase()}`;
}

/** Builds the expectation for a callback-reporting operation whose simulator outcome is known. */
export function finalExpectation(
  eventType: 'TransactionSucceeded' | 'TransactionFailed' | 'TransactionAmbiguous',
  what: string,
  deliveries: number,
  reason?: string,
): Expectation {
  const status = {
    TransactionSucceeded: 'SUCCEEDED',
    TransactionFailed: 'FAILED',
    TransactionAmbiguous: 'AMBIGUOUS',
  }[eventType];
  return {
    summary: `${what} → ${eventType}${reason ? ` (reason ${reason})` : ''}`,
    events: [reason ? { type: eventType, check: (d) => reasonProblem(d, reason) } : { type: eventType }],
    status,
    deliveries,
  };
}

/**
 * What is wrong with an event's reason, or undefined when it is `reason`: the contract's code, or the
 * relay's finer one the event carries beside it (`reasonDetail`, docs/events.md#reason-codes).
 */
export function reasonProblem(data: Record<string, unknown>, reason: string): string | undefined {
  const code = (data.reason as { code?: string } | null)?.code;
  const detail = typeof data.reasonDetail === 'string' ? data.reasonDetail : undefined;
  if (code === reason || detail === reason) return undefined;
  return `reason ${code ?? 'none'}${detail ? ` (${detail})` : ''}, expected ${reason}`;
}
