import * as z from '../../util/zod';
import type { RelayConfig } from '../../config/schema';
import { accountKey } from '../../config/schema';
import {
  InvalidCallbackUrlError,
  InvalidReferenceError,
  RegistrationConflictError,
  RelayError,
  StorageUnavailableError,
  SchemaValidationError,
  UnknownAccountError,
  UnknownKindError,
} from '../../domain/errors';
import { applyRegistration, type RegistrationTerms } from '../../domain/registration';
import { reversalStateOf, type ReversalState } from '../../domain/reversal';
import type { ReversalRecord, TransactionKey, TransactionRecord } from '../../domain/transaction';
import { findRegistrationRules } from '../../providers/registration-registry';
import { findProvider, phoneFieldsOf } from '../../providers/registry';
import {
  HASHED_MSISDN_ID_TYPE,
  maskMsisdn,
  maskMsisdnsIn,
  maskPhoneAttributes,
  maskPartnerId,
  maskPartnerJson,
} from '../../util/mask';
import { jsonLimitProblem } from '../../util/json-limits';
import { toDecimalString } from '../../util/money';
import { lookalikeProblem } from '../../util/text';
import { checkUrlRules, describeViolations } from '../../util/url-rules';
import { checkReportLimits } from './ingest-report';
import { type Clock, noMetrics, type RelayLogger, type RelayMetrics, type RelayStore } from '../ports';
import { recordAuditAfter } from '../operations/audit';
import type { Scrubber } from '../../util/redact';
import { REGISTRATION_EVENTS_REFUSED_METRIC } from '../../config/metric-names';
import { AUTHENTICATION_METHODS, type Evidence } from '../../domain/evidence';
import { TRANSACTION_STATUSES } from '../../domain/status';
import { ALIAS_NAMESPACE_PREFIX, HINT_NAMESPACE, ingestReport } from './ingest-report';
import { reconcileTiming } from '../reconciliation/reconcile-timing';
import { writeWithRetry } from './write-with-retry';
import { accountCallingCode, noteLookups } from '../console/console-query';

/** Metadata is stored on the transaction item: bounded so it can never make the item unstorable. */
const MAX_METADATA_DEPTH = 16;
const MAX_METADATA_BYTES = 8 * 1024;

/**
 * Metadata limits, on the value as received: zod's record would silently drop a "__proto__" member,
 * so the check cannot wait for the parsed copy.
 */
function metadataProblem(metadata: unknown): string | undefined {
  if (!metadata || typeof metadata !== 'object') return undefined;
  const problem = jsonLimitProblem(metadata, {
    maxDepth: MAX_METADATA_DEPTH,
    refuseEmptyNames: true,
    refuseUnsafeNumbers: true,
  });
  if (problem) return problem;
  return JSON.stringify(metadata).length > MAX_METADATA_BYTES
    ? `metadata is over ${MAX_METADATA_BYTES} bytes as JSON`
    : undefined;
}

/** A positive decimal amount as a partner may send it (string or number), normalized. */
export const currencySchema = z
  .string()
  .check(z.regex(/^[A-Z]{3}$/, 'currency must be an ISO 4217 code like KES'));

export const amountSchema = z.pipe(
  z.union([z.string(), z.number()]),
  z.transform((v, ctx) => {
    const decimal = toDecimalString(v);
    // Canonical (no sign, no padding zeros) and within what a wallet moves: a 190-digit amount or 150
    // decimals is a caller's mistake, refused here rather than carried into events and ledgers.
    if (!decimal || !/^\d{1,15}(\.\d{1,4})?$/.test(decimal) || decimal === '0') {
      ctx.issues.push({
        code: 'custom',
        input: v,
        message: 'amount must be a positive decimal number, at most 15 digits before the point and 4 after',
      });
      return z.NEVER;
    }
    return decimal;
  }),
);

const registrationSchema = z.strictObject({
  provider: z.string().check(z.minLength(1)),
  account: z.string().check(z.minLength(1)),
  kind: z.string().check(z.minLength(1)),
  reference: z.string().check(z.minLength(1), z.maxLength(200)),
  amount: z.optional(amountSchema),
  currency: z.optional(currencySchema),
  msisdn: z.optional(
    z.string().check(z.regex(/^\+?\d{6,15}$/, 'msisdn must be digits, optionally with a leading +')),
  ),
  externalId: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  expiresInSeconds: z.optional(z.number().check(z.int(), z.positive(), z.maximum(90 * 86_400))),
  // Its limits are checked on the input as received (metadataProblem), before zod copies it.
  metadata: z.optional(z.record(z.string(), z.unknown())),
});

export interface ManagementDeps {
  config: RelayConfig;
  store: RelayStore;
  clock: Clock;
}

export interface TransactionView {
  provider: string;
  account: string;
  reference: string;
  kind: string;
  status: string;
  registered: boolean;
  amount: TransactionRecord['amount'] | null;
  /** Masked, like every phone number an answer holds (util/mask.ts). */
  msisdn: string | null;
  externalId: string | null;
  providerTransactionId: string | null;
  reason: TransactionRecord['reason'] | null;
  party: TransactionRecord['party'] | null;
  metadata: Record<string, unknown> | null;
  attributes: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  reconcileUntil: string;
  revision: number;
  /** What went back of the payment (its status stays SUCCEEDED); null when nothing did. */
  reversal: ReversalState | null;
  /** Each reversal, oldest first: amount, when, the reversal's receipt and the result it rests on. */
  reversals: ReversalRecord[];
}

/** Evidence as answered: the provider's words with any phone number in them masked. */
export function maskedEvidence(evidence: Evidence): Evidence {
  return evidence.description ? { ...evidence, description: maskMsisdnsIn(evidence.description) } : evidence;
}

/**
 * The party as answered: an MSISDN or a hashed one (no safer than the number) masked, any other id (an
 * email, a party code) with its numbers masked.
 */
function maskedParty(party: TransactionRecord['party']): TransactionRecord['party'] | null {
  if (!party) return null;
  const whole = party.idType === 'MSISDN' || party.idType === HASHED_MSISDN_ID_TYPE;
  return { ...party, id: whole ? maskMsisdn(party.id)! : maskMsisdnsIn(party.id) };
}

/**
 * A transaction as every management answer shows it: its phone numbers masked (the MSISDN, the party, the
 * provider attributes that carry one), so no read, error detail or action answer repeats a full number.
 */
export function toView(tx: TransactionRecord): TransactionView {
  return {
    provider: tx.key.provider,
    account: tx.key.account,
    reference: tx.key.reference,
    kind: tx.kind,
    status: tx.status,
    registered: tx.registered,
    amount: tx.amount ?? null,
    msisdn: tx.msisdn ? maskMsisdn(tx.msisdn)! : null,
    // The partner's id, free text only when it reads as such (docs/management-api.md#phone-numbers).
    externalId: tx.externalId ? maskPartnerId(tx.externalId) : null,
    providerTransactionId: tx.providerTransactionId ?? null,
    reason: tx.reason
      ? {
          ...tx.reason,
          ...(tx.reason.message ? { message: maskMsisdnsIn(tx.reason.message) } : {}),
          ...(tx.reason.providerCode ? { providerCode: maskMsisdnsIn(tx.reason.providerCode) } : {}),
        }
      : null,
    party: maskedParty(tx.party),
    // The partner's own JSON: a member named as any provider names a phone number is masked whole, a
    // number anywhere else in its text too.
    metadata: tx.metadata
      ? (maskPartnerJson(tx.metadata, phoneFieldsOf(null)) as Record<string, unknown>)
      : null,
    attributes: maskPhoneAttributes(tx.attributes ?? {}, phoneFieldsOf(tx.key.provider)),
    createdAt: tx.createdAt,
    updatedAt: tx.updatedAt,
    reconcileUntil: tx.reconcileUntil,
    revision: tx.revision,
    reversal: reversalStateOf(tx) ?? null,
    reversals: (tx.reversals ?? []).map((r) => ({ ...r, evidence: maskedEvidence(r.evidence) })),
  };
}

export interface RegistrationResult {
  created: boolean;
  transaction: TransactionView;
  callbackUrl: string | undefined;
}

/**
 * Registers a transaction the partner initiated. Identical repeats answer 200 with the stored state;
 * a callback that arrived first (an orphan) is adopted after the same business check a callback gets
 * (domain/registration.ts). Read → decide → conditional write through the one write-with-retry loop.
 */
export async function registerTransaction(deps: ManagementDeps, input: unknown): Promise<RegistrationResult> {
  const r = parseRegistration(input);
  const { provider, rules, account, key } = registrationTarget(deps.config, r);
  const callbackUrl = generatedCallbackUrl(deps.config, rules, account, r.kind, key.reference);
  const now = deps.clock.now().toISOString();
  // A reference-less callback that came first left a hint under its externalId: check at once.
  const correlateByExternalId = rules.externalIdAliases === true && r.externalId !== undefined;
  const hint = correlateByExternalId
    ? await deps.store.getRecord({
        provider: provider.id,
        account: account.id,
        namespace: HINT_NAMESPACE,
        id: r.externalId!,
      })
    : undefined;
  const terms = registrationTerms(deps.config, r, key, now, hint);
  const result = await writeRegistration(deps.store, key, terms, now);
  if (result.different) {
    throw new RegistrationConflictError(
      `Transaction ${provider.id}/${account.id}/${key.reference} is already registered with different details`,
      { details: { existing: toView(result.tx) } },
    );
  }
  // The console finds it by externalId and by MSISDN (a repeat writes the same notes again).
  await noteLookups(deps.store, key, result.tx.createdAt, result.tx, {
    callingCode: accountCallingCode(deps.config, key, result.tx.amount?.currency),
    searchKey: deps.config.management.searchKey,
  });
  if (correlateByExternalId) {
    await recordExternalIdAlias(deps.store, key, r.externalId!, now);
    // A reference-less callback that came while we registered found no alias and left a hint we did not
    // read: look again now the alias is written (the callback side looks again after its hint too).
    if (!hint) await adoptLateHint(deps, key, r.kind, r.externalId!);
  }
  return { created: result.created, transaction: toView(result.tx), callbackUrl };
}

type Registration = z.infer<typeof registrationSchema>;

/** The request body, checked: metadata on the value as received (metadataProblem), then the schema. */
function parseRegistration(input: unknown): Registration {
  const problem = metadataProblem((input as { metadata?: unknown } | null)?.metadata);
  if (problem) {
    throw new SchemaValidationError('Invalid transaction registration', {
      details: { issues: { properties: { metadata: { errors: [`metadata: ${problem}`] } } } },
    });
  }
  const parsed = registrationSchema.safeParse(input);
  if (!parsed.success) {
    throw new SchemaValidationError('Invalid transaction registration', {
      details: { issues: z.treeifyError(parsed.error) },
    });
  }
  return parsed.data;
}

/**
 * The provider, account and key it registers under, by the provider's own rules: a known provider that
 * takes registrations, a configured account, one of its kinds, its reference check and normal form.
 */
function registrationTarget(config: RelayConfig, r: Registration) {
  const provider = findProvider(r.provider);
  const rules = provider && findRegistrationRules(provider.id);
  if (!provider || !rules) throw new UnknownAccountError(`Unknown provider "${r.provider.slice(0, 40)}"`);
  const account = config.accounts.get(accountKey(r.provider, r.account));
  if (!account)
    throw new UnknownAccountError(
      `No ${provider.displayName} account "${r.account.slice(0, 64)}" is configured`,
    );
  if (!rules.kinds.includes(r.kind)) {
    throw new UnknownKindError(
      `Unknown ${provider.displayName} kind "${r.kind.slice(0, 40)}"; expected one of ${rules.kinds.join(', ')}`,
    );
  }
  const referenceProblem =
    rules.validateReference(r.reference) ?? lookalikeProblem(r.reference + (r.externalId ?? ''));
  if (referenceProblem) throw new InvalidReferenceError(referenceProblem);
  const reference = rules.normalizeReference?.(r.reference) ?? r.reference;
  const key: TransactionKey = { provider: provider.id, account: account.id, reference };
  checkReportLimits({
    key,
    providerTransactionId: undefined,
    externalId: r.externalId,
    attributes: undefined,
  });
  return { provider, rules, account, key };
}

/** The callback URL the provider's rules hand out for it, held to the URL rules like any configured URL. */
function generatedCallbackUrl(
  config: RelayConfig,
  rules: ReturnType<typeof registrationTarget>['rules'],
  account: ReturnType<typeof registrationTarget>['account'],
  kind: string,
  reference: string,
): string | undefined {
  const callbackUrl = rules.callbackUrl?.({ baseUrl: config.publicBaseUrl, account, kind, reference });
  if (callbackUrl) {
    const violations = checkUrlRules(callbackUrl, config.urlRules);
    if (violations.length)
      throw new InvalidCallbackUrlError(
        `Generated callback URL breaks the URL rules: ${describeViolations(violations)}`,
      );
  }
  return callbackUrl;
}

/** The currency the account's settings name (`accounts.<provider>.<id>.currency`), if any. */
export function configuredCurrency(config: RelayConfig, key: TransactionKey): string | undefined {
  const settings = config.accounts.get(accountKey(key.provider, key.account))?.settings as
    { currency?: unknown } | undefined;
  return typeof settings?.currency === 'string' ? settings.currency : undefined;
}

/** What the domain decides the registration on: its details, its window, its first check, a hint's evidence. */
function registrationTerms(
  config: RelayConfig,
  r: Registration,
  key: TransactionKey,
  now: string,
  hint: { data: Record<string, unknown> } | undefined,
): RegistrationTerms {
  const timing = reconcileTiming(config.reconciliation, key.provider, r.kind);
  const windowSeconds = r.expiresInSeconds ?? timing.windowSeconds;
  return {
    key,
    kind: r.kind,
    // The contract's amount is {value, currency}: a registration that names no currency is in its account's.
    amount: r.amount
      ? { value: r.amount, currency: r.currency ?? configuredCurrency(config, key) }
      : undefined,
    msisdn: r.msisdn,
    externalId: r.externalId,
    metadata: r.metadata,
    reconcileUntil: new Date(Date.parse(now) + windowSeconds * 1000).toISOString(),
    ...(hint ? { hintEvidence: hintEvidence(hint.data, now) } : {}),
    // Never after the window's end: a short expiresInSeconds still gets its check before expiry.
    firstCheckAt: new Date(
      Date.parse(now) + (hint ? 0 : Math.min(timing.firstCheckSeconds, windowSeconds)) * 1000,
    ).toISOString(),
  };
}

/** Read → decide (domain/registration.ts) → conditional write, through the one write-with-retry loop. */
function writeRegistration(store: RelayStore, key: TransactionKey, terms: RegistrationTerms, now: string) {
  return writeWithRetry<{ created: boolean; tx: TransactionRecord; different?: boolean }>(
    store,
    key,
    (current) => {
      const outcome = applyRegistration(current, terms, now);
      switch (outcome.kind) {
        case 'create':
          return { next: outcome.next, result: { created: true, tx: { ...outcome.next, revision: 1 } } };
        case 'adopt':
          return {
            next: outcome.next,
            result: { created: false, tx: { ...outcome.next, revision: (current?.revision ?? 0) + 1 } },
          };
        case 'repeat':
          return { result: { created: false, tx: outcome.current } };
        case 'different':
          return { result: { created: false, tx: outcome.current, different: true } };
      }
    },
    { what: 'register the transaction' },
  );
}

async function adoptLateHint(deps: ManagementDeps, key: TransactionKey, kind: string, externalId: string) {
  const late = await deps.store.getRecord(
    { provider: key.provider, account: key.account, namespace: HINT_NAMESPACE, id: externalId },
    { consistent: true },
  );
  if (!late) return;
  const evidence = hintEvidence(late.data, deps.clock.now().toISOString());
  await ingestReport(
    { store: deps.store, clock: deps.clock, reconciliation: deps.config.reconciliation },
    {
      key,
      kind,
      status: evidence.claim === 'NOT_FOUND' ? 'PENDING' : evidence.claim,
      reason: undefined,
      providerTransactionId: undefined,
      externalId,
      amount: evidence.amount ?? undefined,
      party: undefined,
      receivedAt: evidence.at,
      origin: 'callback',
      receiptId: evidence.receiptId ?? undefined,
      attributes: undefined,
      authentication: evidence.authentication,
      said: {
        providerCode: evidence.providerCode ?? undefined,
        description: evidence.description ?? undefined,
      },
      hint: true,
    },
  );
}

/** A reference-less callback that waited for this registration, as evidence: a callback reported on it. */
function hintEvidence(data: Record<string, unknown>, now: string): Evidence {
  const claim = TRANSACTION_STATUSES.find((s) => s === data.status) ?? 'PENDING';
  const authentication = Array.isArray(data.authentication)
    ? AUTHENTICATION_METHODS.filter((m) => (data.authentication as unknown[]).includes(m))
    : [];
  const amount = data.amount as Evidence['amount'];
  return {
    source: 'callback',
    claim,
    authenticated: authentication.length > 0,
    authentication,
    conclusive: false,
    at: typeof data.at === 'string' ? data.at : now,
    providerCode: typeof data.providerCode === 'string' ? data.providerCode : null,
    description:
      typeof data.description === 'string'
        ? data.description
        : 'reference-less callback (found by externalId) that came before the registration',
    amount: amount && typeof amount.value === 'string' ? amount : null,
    receiptId: typeof data.receiptId === 'string' ? data.receiptId : null,
  };
}

/**
 * externalId → reference, for reference-less callbacks. First registration wins; a second one with the
 * same externalId and another reference makes the alias ambiguous, so such callbacks match nothing and
 * are resolved by status calls, never guessed.
 */
async function recordExternalIdAlias(
  store: RelayStore,
  key: TransactionKey,
  externalId: string,
  now: string,
) {
  const ref = {
    provider: key.provider,
    account: key.account,
    namespace: `${ALIAS_NAMESPACE_PREFIX}externalId`,
    id: externalId,
  };
  const { written, record } = await store.putRecordIfAbsent({
    ...ref,
    data: { reference: key.reference },
    createdAt: now,
  });
  if (written || record.data.reference === key.reference || record.data.ambiguous === true) return;
  await store.putRecord({
    ...ref,
    data: { ambiguous: true, references: [record.data.reference, key.reference] },
    createdAt: now,
  });
}

/** What the event path records a refusal with: the audit log, the metric, and the HTTP status it would get. */
export interface EventRegistrationDeps extends ManagementDeps {
  store: RelayStore;
  log: RelayLogger;
  scrub: Scrubber;
  metrics?: RelayMetrics;
  /** The status `POST /v1/transactions` answers the same refusal with (shared/http/error-mapping.ts). */
  statusOf: (error: RelayError) => number;
}

/**
 * A `TransactionInitiated` event on the bus: `detail.data` (the envelope the relay's own events use) or
 * `detail` itself is the registration body. Bad input is never thrown (EventBridge would retry it for a
 * day without a chance of success): it is recorded like a refused `POST /v1/transactions` (the audit log's
 * `transaction.register`, outcome refused, with no actor: a partner's system sent it), counted
 * (RegistrationEventsRefused, nobody is answered) and logged.
 */
export async function registerFromEvent(
  deps: EventRegistrationDeps,
  event: { detail?: unknown; id?: string; source?: string },
): Promise<{ registered: boolean; created?: boolean; error?: string }> {
  const detail = event.detail as { data?: unknown } | undefined;
  const body = detail && typeof detail === 'object' && 'data' in detail ? detail.data : detail;
  try {
    const result = await registerTransaction(deps, body);
    return { registered: true, created: result.created };
  } catch (error) {
    if (error instanceof RelayError && !(error instanceof StorageUnavailableError)) {
      await recordEventRefusal(deps, event, error);
      return { registered: false, error: deps.scrub(error.message) };
    }
    throw error;
  }
}

async function recordEventRefusal(
  deps: EventRegistrationDeps,
  event: { id?: string; source?: string },
  error: RelayError,
): Promise<void> {
  // Named `metrics` so test/infra/metric-names.test.ts finds the emitter of the alarm's metric.
  const metrics = deps.metrics ?? noMetrics;
  metrics.count(REGISTRATION_EVENTS_REFUSED_METRIC, 1);
  deps.log.warn('TransactionInitiated event refused', {
    eventId: event.id,
    code: error.code,
    error: error.message,
  });
  await recordAuditAfter(deps, {
    actor: null,
    action: 'transaction.register',
    target: null,
    outcome: 'refused',
    httpStatus: deps.statusOf(error),
    detail: `${error.code}: ${error.message}`,
    request: {
      method: 'EVENT',
      path: `TransactionInitiated/${(event.id ?? 'no-id').slice(0, 100)}`,
      sourceIp: (event.source ?? 'eventbridge').slice(0, 64),
      receivedAt: deps.clock.now(),
    },
  });
}
