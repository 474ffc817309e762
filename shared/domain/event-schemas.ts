import * as z from '../util/zod';
import { ROLES } from './actor';
import { EVENT_ORIGINS, EVENT_TYPES, type EventType } from './event-envelope';
import { BADGE_FIELDS, type Badge, type BadgeField } from './badges';
import type { TransactionEventData } from './events';
import { REASON_CODES, REASON_DETAIL_CODES, type PublishedReason } from './reasons';
import { AUTHENTICATION_METHODS, EVIDENCE_SOURCES, type Evidence } from './evidence';
import { TRANSACTION_STATUSES } from './status';
import { BREAK_CATEGORIES, STATEMENT_SOURCES } from './statement';
import type { CheckRecord, ConflictRecord, Money, Party } from './transaction';

/**
 * Machine-readable contract of every event `detail` the relay publishes (docs/events.md#schemas): the
 * envelope `{metadata, data}` and each detail-type's `data`, as the producers build it and as it goes
 * over the wire (`JSON.stringify`: an `undefined` member is absent, hence `z.optional()`; `null` is sent).
 * Objects are strict where the producers' shape is closed, so a field added to an event without adding
 * it here fails test/unit/domain/event-schemas.test.ts, which validates every event real producers emit.
 * `npm run schemas` turns these into the committed JSON Schema files under schemas/events/.
 *
 * The badge change feed's events (Badge…, docs/badges.md) name a shop and a badge, not a transaction.
 */

/** Version of the envelope (`metadata.version`) and of these schemas. */
export const EVENT_SCHEMA_VERSION = '1';

/** The providers the relay speaks (shared/providers/registry.ts; the test keeps both lists equal). */
export const EVENT_PROVIDERS = ['momo', 'airtel', 'daraja'] as const;

/** As `Date.prototype.toISOString()` writes it: UTC, `Z`. */
const timestamp = (description: string) => z.iso.datetime().check(z.describe(description));

/** The canonical decimal strings of shared/util/money.ts: `"100"`, `"1.5"`, never `"100.00"` or a number. */
const decimalStringSchema = z
  .string()
  .check(
    z.regex(/^-?(0|[1-9]\d*)(\.\d*[1-9])?$/),
    z.describe('Canonical decimal string: "100", "1.5" (never "100.00", never a JSON number).'),
  );

const reasonSchema = z
  .strictObject({
    code: z.enum(REASON_CODES).check(z.describe('Normalized reason code (docs/events.md#reason-codes).')),
    message: z.optional(z.string()).check(z.describe('Human-readable text, when there is one.')),
    providerCode: z
      .optional(z.string())
      .check(z.describe("The provider's own code, verbatim, when it gave one.")),
  })
  .check(z.describe('Why the transaction has its status.'));

/** The relay's finer reason beside a published one (shared/domain/reasons.ts REASON_DETAILS). */
const reasonDetailSchema = z
  .enum(REASON_DETAIL_CODES)
  .check(
    z.describe(
      "The relay's finer reason, present when reason.code is the contract's nearer code for it " +
        '(docs/events.md#finer-reasons): e.g. UNCONFIRMED (UNKNOWN), INVALID_INITIATOR (NOT_ALLOWED).',
    ),
  );

const moneySchema = z
  .strictObject({
    value: decimalStringSchema,
    currency: z.optional(z.string()).check(z.describe('ISO 4217 code, when known.')),
  })
  .check(z.describe('An amount.'));

const partySchema = z
  .strictObject({
    idType: z.string().check(z.describe('e.g. MSISDN')),
    id: z.string(),
  })
  .check(z.describe('The payer or payee as the provider reported it.'));

const statusSchema = z.enum(TRANSACTION_STATUSES);

/** Who took a manual action (shared/domain/actor.ts ActorRef; docs/roles-and-audit.md). */
const actorSchema = z
  .strictObject({
    id: z.string().check(z.describe('The Cognito subject, the token name or the IAM principal ARN.')),
    name: z.string().check(z.describe('What a person reads: the e-mail, the token name, the IAM principal.')),
    email: z.nullable(z.string()).check(z.describe("The Cognito user's e-mail, or null.")),
    role: z.enum(ROLES).check(z.describe('viewer, operator or admin.')),
    via: z.enum(['token', 'cognito', 'iam']).check(z.describe('How they signed in.')),
  })
  .check(z.describe('A person (or IAM principal) who took a manual action.'));

/** The transaction data every `Transaction…` event (and CallbackOrphaned) carries: events.ts transactionEventData. */
const transactionDataShape = {
  provider: z.enum(EVENT_PROVIDERS),
  account: z.string().check(z.describe('The configured account id.')),
  kind: z.string().check(z.describe('The operation: requesttopay, payment, stk, b2c, c2b, …')),
  reference: z.string().check(z.describe('The provider-side correlation id the transaction is keyed by.')),
  providerTransactionId: z
    .nullable(z.string())
    .check(z.describe("The provider's own transaction id, or null.")),
  externalId: z
    .nullable(z.string())
    .check(z.describe("The registrant's id (or the provider's externalId), or null.")),
  status: statusSchema.check(z.describe('The status after the fact.')),
  reason: z.nullable(reasonSchema),
  reasonDetail: z.optional(reasonDetailSchema),
  amount: z.nullable(moneySchema),
  party: z.nullable(partySchema),
  receivedAt: timestamp('When the report behind the event was received.'),
  checkedByHand: z.optional(
    z
      .strictObject({ by: actorSchema.check(z.describe('Who asked.')) })
      .check(
        z.describe(
          'Present when the event came from a status check a person asked for (check now): who asked.',
        ),
      ),
  ),
};

/** Provider facts (reversal, account balance): not a transaction status (shared/app/transactions/ingest-facts.ts). */
const factShape = {
  provider: z.enum(EVENT_PROVIDERS),
  account: z.string().check(z.describe('The configured account id.')),
  originatorConversationId: z
    .nullable(z.string())
    .check(z.describe("The request's OriginatorConversationID.")),
  conversationId: z.nullable(z.string()).check(z.describe("Daraja's ConversationID of the request.")),
  receiptId: z.nullable(z.string()).check(z.describe('The stored receipt of the callback.')),
  receivedAt: timestamp('When the callback was received.'),
};

/** A reversal names the transaction it is about when the relay knows the original receipt. */
const reversalShape = {
  ...factShape,
  kind: z.nullable(z.string()).check(z.describe("The reversed transaction's kind, when the relay knows it.")),
  reference: z
    .nullable(z.string())
    .check(z.describe("The reversed transaction's reference, when the relay knows it.")),
  transactionStatus: z
    .nullable(statusSchema)
    .check(z.describe("The reversed transaction's status (a reversal never changes it).")),
};

/** The generic transaction data, any status (TransactionConflict, and the base of the others). */
/** @public the list the type is derived from */
export const transactionDataSchema = z.strictObject(transactionDataShape);

/** A poller's status call as recorded on the transaction (CheckRecord). */
const checkShape = {
  at: timestamp('When the status call was made.'),
  answer: z
    .string()
    .check(
      z.describe('The classified answer: report:<STATUS>, pending, not-found, requested or error:<kind>.'),
    ),
  detail: z.string().check(z.describe("The provider's answer, scrubbed, MSISDNs masked.")),
};

/** One report a verdict rests on (shared/domain/evidence.ts Evidence). */
const evidenceSchema = z
  .strictObject({
    source: z
      .enum(EVIDENCE_SOURCES)
      .check(
        z.describe(
          'callback, buffer (a callback applied from the ingress buffer), status-api, receipt (the result of the ' +
            "relay's own asynchronous status query), operator, registration or statement (a row of the provider's " +
            'own records: its pull API, or a statement file a person uploaded).',
        ),
      ),
    claim: z
      .enum([...TRANSACTION_STATUSES, 'NOT_FOUND'])
      .check(
        z.describe('What it said: a status, or NOT_FOUND (the status API does not know the reference).'),
      ),
    authenticated: z
      .boolean()
      .check(z.describe('Some check passed (signature, path secret, source IP, the provider itself).')),
    authentication: z
      .array(z.enum(AUTHENTICATION_METHODS))
      .check(
        z.describe(
          'The checks that passed: signature, path-secret, source-ip, receipt, status-api, operator, provider-api.',
        ),
      ),
    conclusive: z
      .boolean()
      .check(z.describe('It may settle the transaction on its own (docs/reconciliation.md#precedence).')),
    at: timestamp('When the relay received it.'),
    providerCode: z.nullable(z.string()).check(z.describe("The provider's own code, verbatim, or null.")),
    description: z
      .nullable(z.string())
      .check(z.describe("The provider's words (or the relay's), scrubbed, bounded.")),
    amount: z.nullable(moneySchema).check(z.describe('The amount it stated, or null.')),
    receiptId: z
      .nullable(z.string())
      .check(z.describe('The stored receipt that carried it (callbacks), or null.')),
    actor: z.optional(actorSchema.check(z.describe('The person whose word it is (source operator).'))),
    approvedBy: z.optional(
      actorSchema.check(z.describe('The second person who approved it (above the account limit).')),
    ),
    requestedBy: z.optional(
      actorSchema.check(
        z.describe('The person who asked the provider for this answer (check now; source status-api).'),
      ),
    ),
  })
  .check(z.describe('A piece of evidence: one report the relay weighed.'));

const evidenceListSchema = z
  .array(evidenceSchema)
  .check(z.describe('The reports the verdict rests on, oldest first; the one that settled it is included.'));

const resolvedByHandSchema = z
  .strictObject({
    note: z.string().check(z.describe("The operator's note.")),
    by: z.optional(actorSchema.check(z.describe('Who resolved it.'))),
    approvedBy: z.optional(
      actorSchema.check(z.describe('Who approved it, when it was above the account limit.')),
    ),
  })
  .check(z.describe('Present when an operator resolved the transaction (origin manual).'));

const acceptedFromQuarantineSchema = z
  .strictObject({
    quarantineId: z.string().check(z.describe('The refused callback accepted (GET /v1/quarantine).')),
    receivedAt: timestamp('When the refused callback was received.'),
    errorCode: z.string().check(z.describe('Why it had been refused (ORIGIN_NOT_VERIFIED, …).')),
    note: z.string().check(z.describe("The operator's note.")),
    by: actorSchema.check(z.describe('Who accepted it.')),
  })
  .check(
    z.describe(
      'Present when an operator accepted a refused provider callback after review (origin manual; ' +
        'docs/roles-and-audit.md#quarantine-decisions).',
    ),
  );

const lateResolutionSchema = z
  .literal(true)
  .check(z.describe('Present (true) when the transaction had been EXPIRED: money may have moved after all.'));

const settledByStatementSchema = z
  .strictObject({
    source: z.enum(STATEMENT_SOURCES),
    ref: z.string().check(z.describe('The file name, or the pull query that returned the row.')),
    row: z.optional(z.number().check(z.int(), z.positive())),
    actor: z.string().check(z.describe('Who brought it: "system" (the scheduled pull) or the operator.')),
  })
  .check(
    z.describe(
      "Present when a row of the provider's own records settled the transaction (evidence source statement; " +
        "origin poll for the relay's own pull, manual for a file a person uploaded): a late " +
        'resolution of a PENDING, AMBIGUOUS or EXPIRED transaction, or one the row opened (docs/statements.md).',
    ),
  );

function finalStatusData(status: 'SUCCEEDED' | 'FAILED') {
  return z.strictObject({
    ...transactionDataShape,
    status: z.literal(status),
    evidence: evidenceListSchema,
    lateResolution: z.optional(lateResolutionSchema),
    resolvedByHand: z.optional(resolvedByHandSchema),
    acceptedFromQuarantine: z.optional(acceptedFromQuarantineSchema),
    settledByStatement: z.optional(settledByStatementSchema),
  });
}

const countAmount = z.strictObject({
  count: z.number().check(z.int(), z.nonnegative()),
  amount: decimalStringSchema,
});

const dailyBreakSchema = z
  .strictObject({
    id: z.uuid(),
    category: z.enum(BREAK_CATEGORIES),
    detectedAt: timestamp('When the relay first saw the difference.'),
    ageSeconds: z.number().check(z.int(), z.nonnegative()),
    providerId: z.optional(z.string()),
    reference: z.optional(z.string()),
    amount: z.optional(decimalStringSchema),
    expected: z.optional(z.string()),
    actual: z.optional(z.string()),
    detail: z.string(),
    resolution: z.optional(z.literal('opened')),
  })
  .check(z.describe('One break: a difference a person acts on (docs/statements.md#breaks).'));

const dailyClosedData = z.strictObject({
  provider: z.string(),
  account: z.string(),
  day: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/), z.describe("The provider's business day.")),
  timeZone: z.string(),
  closedAt: timestamp('When the day closed.'),
  closedBecause: z.enum(['sources-in', 'sla-passed']),
  sources: z.array(z.enum(STATEMENT_SOURCES)),
  verdicts: z
    .record(z.string(), countAmount)
    .check(z.describe("The relay's transactions of the day by status: count and amount.")),
  rows: z.strictObject({
    payments: z.number().check(z.int(), z.nonnegative()),
    matched: z.number().check(z.int(), z.nonnegative()),
    unmatched: z.number().check(z.int(), z.nonnegative()),
    fees: countAmount,
    reversals: z.number().check(z.int(), z.nonnegative()),
    other: z.number().check(z.int(), z.nonnegative()),
    amountIn: decimalStringSchema,
    amountOut: decimalStringSchema,
  }),
  lateResolutions: z.number().check(z.int(), z.nonnegative()),
  matchRate: z.strictObject({
    matched: z.number().check(z.int(), z.nonnegative()),
    toMatch: z.number().check(z.int(), z.nonnegative()),
    rate: z.nullable(z.number().check(z.gte(0), z.lte(1))),
  }),
  breakCount: z.number().check(z.int(), z.nonnegative()),
  breaks: z
    .array(dailyBreakSchema)
    .check(z.describe('The breaks, oldest first, at most 100 (breakCount says how many in all).')),
});

/** A badge as the feed publishes it (shared/domain/badges.ts Badge: the badge API's fields, `_links` dropped). */
const badgeSchema = z
  .strictObject({
    id: z.string().check(z.minLength(1)),
    badge_name: z.string(),
    badge_type: z.string(),
    filter: z
      .union([
        z.string(),
        z.int(),
        z.array(z.strictObject({ id: z.int(), name: z.string(), sku: z.string(), image: z.string() })),
      ])
      .check(z.describe('"all", a product id, or the products.')),
    badge_style: z.string(),
    badge_settings: z.record(z.string(), z.unknown()),
    priority: z.string(),
    status: z.string(),
    created_by: z.string(),
    valid_from: z.nullable(timestamp('Start of the validity period (UTC), or null.')),
    valid_to: z.nullable(timestamp('End of the validity period (UTC), or null.')),
    created_at: z.nullable(z.string()).check(z.describe('As the shop writes it: YYYY-MM-DD HH:mm:ss.')),
    updated_at: z.nullable(z.string()).check(z.describe('As the shop writes it: YYYY-MM-DD HH:mm:ss.')),
  })
  .check(z.describe('The badge, normalized.'));

/** The fields a BadgeUpdated may name: the domain's own list. */
const BADGE_FIELD_NAMES = BADGE_FIELDS;

const badgeShape = {
  shop: z.string().check(z.describe('The shop id (badges.shops.<shop>).')),
  badgeId: z.string().check(z.minLength(1)),
  observedAt: timestamp('When the relay saw the change (the read, or the scheduler tick).'),
};

const revisionSchema = z
  .int()
  .check(z.positive(), z.describe("The badge's revision in the relay: 1 when created, +1 per change."));
const activeSchema = z
  .boolean()
  .check(z.describe('Whether the badge was within its validity period when observed.'));

export const EVENT_DATA_SCHEMAS = {
  TransactionSucceeded: finalStatusData('SUCCEEDED'),
  TransactionFailed: finalStatusData('FAILED'),
  TransactionAmbiguous: z.strictObject({ ...transactionDataShape, status: z.literal('AMBIGUOUS') }),
  TransactionExpired: z.strictObject({
    ...transactionDataShape,
    status: z.literal('EXPIRED'),
    // reasonSchema's members, not its description (z.extend refuses an object with a describe check).
    reason: z.strictObject({ ...reasonSchema.shape, code: z.literal('UNKNOWN') }),
    reasonDetail: z.literal('NO_FINAL_ANSWER'),
    lastProviderAnswer: z
      .strictObject({
        ...checkShape,
        providerCode: z
          .nullable(z.string())
          .check(z.describe("The provider's code in that answer, or null.")),
      })
      .check(z.describe('The last status call before the expiry (the one made at the window end).')),
    statusChecks: z.int().check(z.positive(), z.describe('Status calls made, the last one included.')),
    evidence: evidenceListSchema.check(
      z.describe('Every report recorded before the window ended (may be empty).'),
    ),
  }),
  TransactionEscalated: z.strictObject({
    ...transactionDataShape,
    status: z.literal('AMBIGUOUS'),
    ambiguousSince: timestamp('When the transaction became AMBIGUOUS.'),
    lastProviderAnswer: z
      .nullable(
        z.strictObject({
          ...checkShape,
          providerCode: z
            .optional(z.string())
            .check(z.describe("The provider's code in that answer, when it had one.")),
        }),
      )
      .check(z.describe('The latest status call, or null when none was made yet.')),
  }),
  TransactionConflict: z.strictObject({
    ...transactionDataShape,
    conflict: z
      .strictObject({
        kind: z
          .enum(['STATUS', 'AMOUNT_MISMATCH', 'MSISDN_MISMATCH', 'UNVERIFIED_SUCCESS', 'NOT_FOUND'])
          .check(
            z.describe(
              'STATUS: sources disagree on the status; AMOUNT_MISMATCH / MSISDN_MISMATCH: a success for another ' +
                'amount, currency or MSISDN; UNVERIFIED_SUCCESS: an unsigned success the status API answered FAILED; ' +
                'NOT_FOUND: the status API does not know a reference a callback reported on (check the API user).',
            ),
          ),
        detail: z.string(),
        currentStatus: statusSchema.check(z.describe("The transaction's status, unchanged by the report.")),
        reportedStatus: statusSchema,
        reportedReason: z.nullable(reasonSchema),
        reportedAmount: z.nullable(moneySchema),
        reportedProviderTransactionId: z.nullable(z.string()),
        evidence: z
          .array(evidenceSchema)
          .check(z.describe('The pieces of evidence that disagree: what was known first, then what came.')),
      })
      .check(z.describe('What the transaction says and what the report said instead.')),
  }),
  CallbackOrphaned: z.strictObject({
    ...transactionDataShape,
    status: z
      .literal('PENDING')
      .check(z.describe('Always PENDING: the status event of the callback follows.')),
    note: z.string(),
  }),
  C2BValidationDecided: z.strictObject({
    provider: z.literal('daraja'),
    account: z.string(),
    kind: z.literal('c2b'),
    reference: z.string().check(z.describe('The TransID.')),
    decision: z.enum(['accept', 'reject']),
    resultCode: z
      .enum(['0', 'C2B00011', 'C2B00012', 'C2B00013', 'C2B00014', 'C2B00015', 'C2B00016'])
      .check(z.describe('The ResultCode Daraja got back: "0" accepts.')),
    rule: z
      .enum([
        'short-code',
        'msisdn-prefix',
        'amount',
        'bill-ref-pattern',
        'customer-name',
        'known-account',
        'partner-endpoint',
        'all-rules-passed',
        'default',
      ])
      .check(z.describe('The rule that decided.')),
    detail: z.string(),
    deadlineApplied: z
      .boolean()
      .check(z.describe("The decision was not ready by the deadline; the account's default answered.")),
    defaultApplied: z
      .boolean()
      .check(z.describe('The default answered (deadline, or a decision source failed).')),
    sourceError: z.nullable(z.string()).check(z.describe('Why a decision source failed, when one did.')),
    elapsedMs: z.number().check(z.nonnegative()),
    billRefNumber: z.nullable(z.string()),
    amount: z.nullable(moneySchema),
    msisdn: z.nullable(z.string()).check(z.describe('Masked, e.g. 25470****149.')),
    receiptId: z.nullable(z.string()).check(z.describe('The stored receipt of the validation request.')),
    decidedAt: timestamp('When the decision was recorded.'),
    deadlineMs: z.int().check(z.positive(), z.describe("The account's validation deadline.")),
    transId: z.string().check(z.describe('The TransID (same as reference).')),
    receivedAt: timestamp('When the validation request was received.'),
  }),
  CallbackRejected: z.strictObject({
    provider: z.enum(EVENT_PROVIDERS),
    account: z.string(),
    route: z
      .nullable(z.string())
      .check(z.describe('The route name, when the request got as far as matching one.')),
    method: z.string(),
    path: z.string().check(z.describe('The request path, path secret redacted.')),
    sourceIp: z.string(),
    httpStatus: z.int().check(z.minimum(400), z.maximum(599), z.describe('The HTTP status answered.')),
    errorCode: z.string().check(z.describe('The relay error code (docs/routes.md), e.g. UNAUTHORIZED.')),
    message: z.string(),
    quarantineId: z.uuid().check(z.describe('The id of the quarantined request.')),
    receivedAt: timestamp('When the request was received.'),
  }),
  TransactionReversed: z.strictObject({
    ...reversalShape,
    originalReceipt: z
      .string()
      .check(z.describe('The receipt of the payment that was reversed (OriginalTransactionID).')),
    reversalReceipt: z
      .nullable(z.string())
      .check(z.describe("The reversal's own receipt (Result.TransactionID).")),
    amount: z.nullable(moneySchema).check(z.describe('The amount that went back.')),
    netAmount: z
      .nullable(moneySchema)
      .check(
        z.describe(
          'What is left of the payment after this and its earlier reversals ("0": fully reversed); null when the relay knows no transaction or no amount.',
        ),
      ),
    charge: z.nullable(moneySchema),
    completedTime: z
      .nullable(z.string())
      .check(z.describe("Daraja's TransCompletedTime, verbatim (yyyyMMddHHmmss).")),
    amountCheck: z
      .enum(['matches', 'differs', 'unknown'])
      .check(z.describe("The reversed amount against the transaction's: unknown when either is missing.")),
    evidence: evidenceListSchema.check(z.describe('The reversal result the fact rests on.')),
  }),
  ReversalFailed: z.strictObject({
    ...reversalShape,
    originalReceipt: z.nullable(z.string()),
    reason: reasonSchema,
    reasonDetail: z.optional(reasonDetailSchema),
  }),
  ReversalAmbiguous: z.strictObject({
    ...reversalShape,
    originalReceipt: z
      .nullable(z.string())
      .check(z.describe('From the echoed request, when the notice echoes it.')),
    reason: reasonSchema.check(
      z.describe(
        "TIMED_OUT: the request timed out in the queue; the result may still come. UNKNOWN with reasonDetail UNCONFIRMED: a success from an address the source-IP list did not admit, not counted as a reversal; Daraja's own result still applies. UNKNOWN with reasonDetail CONFLICTING_REPORTS: code and words disagree. UNKNOWN with reasonDetail NO_FINAL_ANSWER: such a held success that the transaction status query did not settle after its asks, for a person.",
      ),
    ),
    reasonDetail: z.optional(reasonDetailSchema),
  }),
  AccountBalanceReported: z.strictObject({
    ...factShape,
    accounts: z
      .array(
        z.strictObject({
          name: z.string().check(z.describe('e.g. Working Account, Utility Account')),
          currency: z.string(),
          current: decimalStringSchema,
          available: z.nullable(decimalStringSchema),
          reserved: z.nullable(decimalStringSchema),
          uncleared: z.nullable(decimalStringSchema),
        }),
      )
      .check(
        z.minLength(1),
        z.describe("Daraja's AccountBalance string, one entry per `&`-separated account."),
      ),
    completedTime: z
      .nullable(z.string())
      .check(z.describe("Daraja's BOCompletedTime, verbatim (yyyyMMddHHmmss).")),
  }),
  AccountBalanceFailed: z.strictObject({
    ...factShape,
    reason: reasonSchema.check(z.describe('The result code, or TIMED_OUT for a queue-timeout notice.')),
    reasonDetail: z.optional(reasonDetailSchema),
  }),
  BadgeCreated: z.strictObject({
    ...badgeShape,
    revision: revisionSchema,
    badge: badgeSchema,
    active: activeSchema,
  }),
  BadgeUpdated: z.strictObject({
    ...badgeShape,
    revision: revisionSchema,
    badge: badgeSchema,
    previous: badgeSchema.check(z.describe('The badge before the change.')),
    changedFields: z
      .array(z.enum(BADGE_FIELD_NAMES))
      .check(z.minLength(1), z.describe('The fields that differ.')),
    active: activeSchema,
  }),
  BadgeDeleted: z.strictObject({
    ...badgeShape,
    revision: revisionSchema,
    previous: badgeSchema.check(z.describe('The badge as last read.')),
  }),
  BadgeActivated: z.strictObject({
    ...badgeShape,
    badge: badgeSchema,
    validFrom: timestamp('The valid_from that passed (also metadata.occurredAt).'),
    validTo: z.nullable(timestamp('The end of the period, or null.')),
  }),
  BadgeExpired: z.strictObject({
    ...badgeShape,
    badge: badgeSchema,
    validFrom: z.nullable(timestamp('The start of the period, or null.')),
    validTo: timestamp('The valid_to that passed (also metadata.occurredAt).'),
  }),
  CallbackSilence: z.strictObject({
    provider: z.string(),
    account: z.string(),
    silentSince: timestamp('The later of the last callback and the oldest waiting transaction.'),
    lastCallbackAt: z.nullable(timestamp('The last callback noted before the silence, or null.')),
    waitingTransactions: z
      .number()
      .check(z.int(), z.positive(), z.describe('PENDING transactions waiting for a callback.')),
    silenceSeconds: z.number().check(z.positive()),
    pollEverySeconds: z.number().check(z.positive()),
    detectedAt: timestamp('The poll cycle that saw it.'),
  }),
  CallbacksResumed: z.strictObject({
    provider: z.string(),
    account: z.string(),
    silentFrom: timestamp('The silence episode began (CallbackSilence.silentSince).'),
    silentTo: timestamp('The first callback noted after it (to within a minute).'),
    durationSeconds: z.number().check(z.int(), z.nonnegative()),
    detectedAt: timestamp('The poll cycle that saw it.'),
  }),
  DailyClosed: dailyClosedData,
  DestinationDisabled: z.strictObject({
    destination: z
      .string()
      .check(z.describe('The destination id (`destinations.<id>` in the relay config).')),
    reason: z
      .enum(['gone', 'consecutive-failures'])
      .check(
        z.describe(
          'gone: it answered 410; consecutive-failures: disableAfterFailures attempts in a row failed.',
        ),
      ),
    detail: z
      .string()
      .check(z.describe('"410 Gone" or "<n> consecutive failed attempts" (never a URL or a secret).')),
    lastStatus: z
      .nullable(z.number().check(z.int()))
      .check(z.describe('The HTTP status of the last attempt, or null when nothing answered.')),
    consecutiveFailures: z.number().check(z.int(), z.positive()),
    disabledAt: timestamp('When the attempt that disabled it finished (also metadata.occurredAt).'),
  }),
} satisfies Record<EventType, z.ZodMiniType>;

export const EVENT_DESCRIPTIONS: Record<EventType, string> = {
  TransactionSucceeded:
    'A transaction reached SUCCEEDED (callback, C2B confirmation, status check or an operator). Published once ' +
    'per transaction. lateResolution: true when it had been EXPIRED.',
  TransactionFailed:
    'A transaction reached FAILED, with a reason. Published once per transaction. lateResolution: true when it ' +
    'had been EXPIRED.',
  TransactionAmbiguous:
    'The provider said the outcome is unclear, or an unsigned success awaits confirmation (reason UNKNOWN, ' +
    'reasonDetail UNCONFIRMED); ' +
    'reconciliation continues.',
  TransactionExpired:
    'The reconciliation window ended with no final answer: a person must look. Carries the last provider answer.',
  TransactionEscalated:
    'An AMBIGUOUS transaction outlived reconciliation.escalateAmbiguousAfterSeconds; reconciliation continues.',
  TransactionConflict:
    'Two sources disagree: a report against the final status, a success for another amount, currency or MSISDN ' +
    'than registered, the status API denying an unsigned report, or a status API that does not know a reference ' +
    'a callback reported on (NOT_FOUND). Names both pieces of evidence. A final status is never changed by it; ' +
    'an open transaction becomes AMBIGUOUS and is escalated when precedence cannot settle it.',
  C2BValidationDecided: 'A Daraja C2B validation was answered; published once per TransID.',
  CallbackRejected:
    'A request to a configured account failed authentication or format checks (security signal); the request ' +
    'is kept in quarantine. correlationId is <provider>:<account>:quarantine.',
  CallbackOrphaned:
    'A valid callback for a transaction nobody registered; it is stored and applied, its status event follows.',
  TransactionReversed:
    'Daraja reversed a payment: the money went back. The transaction keeps its SUCCEEDED status; reference ' +
    'names it when the original receipt is known to the relay (null otherwise). Once per reversal request.',
  ReversalFailed: 'Daraja refused a reversal (the payment stands). Once per reversal request.',
  ReversalAmbiguous:
    'A reversal request timed out in the Daraja queue: its outcome is unknown (a result may still come; ' +
    'check with the transaction status query). Or (reasonDetail UNCONFIRMED) a reversal success from a sender the ' +
    "source-IP list did not admit: held, not counted against the payment; Daraja's own result still applies. " +
    'Or (reasonDetail NO_FINAL_ANSWER) such a held success the transaction status query did not settle: for a person.',
  AccountBalanceReported: "A Daraja account balance result: the short code's accounts, parsed.",
  AccountBalanceFailed: 'A Daraja account balance request failed or timed out in the queue.',
  BadgeCreated:
    "A shop's badge API lists a badge the relay did not know (or had seen deleted). correlationId is " +
    'badges:<shop>:<badgeId>; published once per badge revision.',
  BadgeUpdated: 'A badge changed between two reads; changedFields names what differs. Once per revision.',
  BadgeDeleted:
    'A badge left the list and its single read answered 404 (an absent badge is never taken as deleted ' +
    'without that confirmation). Once per revision.',
  BadgeActivated:
    "A badge's valid_from passed (published at the scheduler tick after that time, not at the next read).",
  BadgeExpired: "A badge's valid_to passed (published at the scheduler tick after that time).",
  CallbackSilence:
    "An account's callbacks stopped: none for reconciliation.callbackSilenceSeconds while a transaction waits for " +
    'one; its waiting transactions are checked more often until they come back. Once per silence episode.',
  CallbacksResumed: 'The first callback of a silent account arrived. Once per silence episode.',
  DailyClosed:
    "An account's business day (the provider's time zone) closed against the provider's own records: counts " +
    'and amounts by verdict, rows matched and not, fees, late resolutions, the auto-match rate and every break ' +
    'with its age. Once per account and day; correlationId is <provider>:<account>:day-<YYYY-MM-DD>.',
  DestinationDisabled:
    'A webhook destination was disabled: it answered 410 Gone, or disableAfterFailures attempts in a row failed. ' +
    'Its events are dead-lettered (kept in the delivery log for a replay) until an operator resumes it. Once per ' +
    'disabling; correlationId is destinations:<destination>. An operator event: not delivered to webhook destinations.',
};

/** The envelope of one detail-type (`metadata.type` is that type). */
function eventDetailSchema<T extends EventType>(type: T) {
  return z
    .strictObject({
      metadata: z.strictObject({
        id: z.uuid().check(z.describe('Deterministic for the same fact: dedupe on it.')),
        version: z.literal(EVENT_SCHEMA_VERSION),
        type: z.literal(type),
        occurredAt: timestamp(
          'When the report that caused the event was received (Badge…: observed, or the bound that passed).',
        ),
        correlationId: z
          .string()
          .check(
            z.describe(
              '<provider>:<account>:<reference> (Badge…: badges:<shop>:<badgeId>; DestinationDisabled: destinations:<destination>)',
            ),
          ),
        origin: z
          .enum(EVENT_ORIGINS)
          .check(z.describe('How the fact reached the relay (docs/events.md#origins).')),
        stateVersion: z.optional(
          z
            .number()
            .check(
              z.int(),
              z.nonnegative(),
              z.describe(
                'The version (revision) of the correlated state that published the event; on every published event. Events of one change share it; an event with a lower stateVersion than one handled for the same correlationId is stale.',
              ),
            ),
        ),
      }),
      data: EVENT_DATA_SCHEMAS[type] as (typeof EVENT_DATA_SCHEMAS)[T],
    })
    .check(z.meta({ title: type, description: EVENT_DESCRIPTIONS[type] }));
}

export type EventDetailSchemas = { [T in EventType]: ReturnType<typeof eventDetailSchema<T>> };

/** The EventBridge `detail` of every detail-type the relay emits, by detail-type. */
export const EVENT_DETAIL_SCHEMAS = Object.fromEntries(
  EVENT_TYPES.map((type) => [type, eventDetailSchema(type)]),
) as EventDetailSchemas;

export type EventData<T extends EventType> = z.infer<(typeof EVENT_DATA_SCHEMAS)[T]>;

// Compile-time ties to the domain's builder types: \`npm run build\` fails when they drift apart. The
// producers in shared/app (C2BValidationDecided, CallbackRejected, …) are tied by the test instead.
type Assignable<From, To> = [From] extends [To] ? true : false;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Expect<_T extends true> = true;
type TransactionData = z.infer<typeof transactionDataSchema>;
type _BuilderTypesMatchSchemas = [
  Expect<Assignable<PublishedReason, z.infer<typeof reasonSchema>>>,
  Expect<Assignable<Money, z.infer<typeof moneySchema>>>,
  Expect<Assignable<Party, z.infer<typeof partySchema>>>,
  Expect<Same<TransactionData['status'], TransactionEventData['status']>>,
  // TransactionEventData has an index signature (Omit would erase its members): pick the schema's keys.
  // checkedByHand is added by the check-now use case (reconcile.ts), not by the builder.
  Expect<
    Assignable<
      Pick<TransactionEventData, Exclude<keyof TransactionData, 'provider' | 'checkedByHand'>>,
      Omit<TransactionData, 'provider' | 'checkedByHand'>
    >
  >,
  Expect<Assignable<Badge, z.infer<typeof badgeSchema>>>,
  Expect<Same<BadgeField, (typeof BADGE_FIELD_NAMES)[number]>>,
  Expect<Same<ConflictRecord['kind'], EventData<'TransactionConflict'>['conflict']['kind']>>,
  Expect<Assignable<Evidence, z.infer<typeof evidenceSchema>>>,
  Expect<Assignable<CheckRecord, NonNullable<EventData<'TransactionEscalated'>['lastProviderAnswer']>>>,
];
