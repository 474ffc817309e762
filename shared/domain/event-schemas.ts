import * as z from 'zod';
import { EVENT_ORIGINS, EVENT_TYPES, type EventType } from './event-envelope';
import { BADGE_FIELDS, type Badge, type BadgeField } from './badges';
import type { TransactionEventData } from './events';
import { REASON_CODES, type Reason } from './reasons';
import { AUTHENTICATION_METHODS, EVIDENCE_SOURCES, type Evidence } from './evidence';
import { TRANSACTION_STATUSES } from './status';
import type { CheckRecord, ConflictRecord, Money, Party } from './transaction';

/**
 * Machine-readable contract of every event `detail` the relay publishes (docs/events.md#schemas): the
 * envelope `{metadata, data}` and each detail-type's `data`, as the producers build it and as it goes
 * over the wire (`JSON.stringify`: an `undefined` member is absent, hence `.optional()`; `null` is sent).
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
const timestamp = (description: string) => z.iso.datetime().describe(description);

/** The canonical decimal strings of shared/util/money.ts: `"100"`, `"1.5"`, never `"100.00"` or a number. */
export const decimalStringSchema = z
  .string()
  .regex(/^-?(0|[1-9]\d*)(\.\d*[1-9])?$/)
  .describe('Canonical decimal string: "100", "1.5" (never "100.00", never a JSON number).');

export const reasonSchema = z
  .strictObject({
    code: z.enum(REASON_CODES).describe('Normalized reason code (docs/events.md#reason-codes).'),
    message: z.string().optional().describe('Human-readable text, when there is one.'),
    providerCode: z.string().optional().describe("The provider's own code, verbatim, when it gave one."),
  })
  .describe('Why the transaction has its status.');

export const moneySchema = z
  .strictObject({
    value: decimalStringSchema,
    currency: z.string().optional().describe('ISO 4217 code, when known.'),
  })
  .describe('An amount.');

export const partySchema = z
  .strictObject({
    idType: z.string().describe('e.g. MSISDN'),
    id: z.string(),
  })
  .describe('The payer or payee as the provider reported it.');

const statusSchema = z.enum(TRANSACTION_STATUSES);

/** The transaction data every `Transaction…` event (and CallbackOrphaned) carries: events.ts transactionEventData. */
export const transactionDataShape = {
  provider: z.enum(EVENT_PROVIDERS),
  account: z.string().describe('The configured account id.'),
  kind: z.string().describe('The operation: requesttopay, payment, stk, b2c, c2b, …'),
  reference: z.string().describe('The provider-side correlation id the transaction is keyed by.'),
  providerTransactionId: z.string().nullable().describe("The provider's own transaction id, or null."),
  externalId: z.string().nullable().describe("The registrant's id (or the provider's externalId), or null."),
  status: statusSchema.describe('The status after the fact.'),
  reason: reasonSchema.nullable(),
  amount: moneySchema.nullable(),
  party: partySchema.nullable(),
  receivedAt: timestamp('When the report behind the event was received.'),
};

/** Provider facts (reversal, account balance): not a transaction status (shared/app/ingest-facts.ts). */
const factShape = {
  provider: z.enum(EVENT_PROVIDERS),
  account: z.string().describe('The configured account id.'),
  originatorConversationId: z.string().nullable().describe("The request's OriginatorConversationID."),
  conversationId: z.string().nullable().describe("Daraja's ConversationID of the request."),
  receiptId: z.string().nullable().describe('The stored receipt of the callback.'),
  receivedAt: timestamp('When the callback was received.'),
};

/** A reversal names the transaction it is about when the relay knows the original receipt. */
const reversalShape = {
  ...factShape,
  kind: z.string().nullable().describe("The reversed transaction's kind, when the relay knows it."),
  reference: z.string().nullable().describe("The reversed transaction's reference, when the relay knows it."),
  transactionStatus: statusSchema
    .nullable()
    .describe("The reversed transaction's status (a reversal never changes it)."),
};

/** The generic transaction data, any status (TransactionConflict, and the base of the others). */
export const transactionDataSchema = z.strictObject(transactionDataShape);

/** A poller's status call as recorded on the transaction (CheckRecord). */
const checkShape = {
  at: timestamp('When the status call was made.'),
  answer: z
    .string()
    .describe('The classified answer: report:<STATUS>, pending, not-found, requested or error:<kind>.'),
  detail: z.string().describe("The provider's answer, scrubbed, MSISDNs masked."),
};

/** One report a verdict rests on (shared/domain/evidence.ts Evidence). */
export const evidenceSchema = z
  .strictObject({
    source: z
      .enum(EVIDENCE_SOURCES)
      .describe(
        'callback, buffer (a callback applied from the ingress buffer), status-api, receipt (the result of the ' +
          "relay's own asynchronous status query), operator or registration.",
      ),
    claim: z
      .enum([...TRANSACTION_STATUSES, 'NOT_FOUND'])
      .describe('What it said: a status, or NOT_FOUND (the status API does not know the reference).'),
    authenticated: z
      .boolean()
      .describe('Some check passed (signature, path secret, source IP, the provider itself).'),
    authentication: z
      .array(z.enum(AUTHENTICATION_METHODS))
      .describe('The checks that passed: signature, path-secret, source-ip, receipt, status-api, operator.'),
    conclusive: z
      .boolean()
      .describe('It may settle the transaction on its own (docs/reconciliation.md#precedence).'),
    at: timestamp('When the relay received it.'),
    providerCode: z.string().nullable().describe("The provider's own code, verbatim, or null."),
    description: z.string().nullable().describe("The provider's words (or the relay's), scrubbed, bounded."),
    amount: moneySchema.nullable().describe('The amount it stated, or null.'),
    receiptId: z.string().nullable().describe('The stored receipt that carried it (callbacks), or null.'),
  })
  .describe('A piece of evidence: one report the relay weighed.');

const evidenceListSchema = z
  .array(evidenceSchema)
  .describe('The reports the verdict rests on, oldest first; the one that settled it is included.');

const resolvedByHandSchema = z
  .strictObject({ note: z.string().describe("The operator's note.") })
  .describe('Present when an operator resolved the transaction (origin manual).');

const lateResolutionSchema = z
  .literal(true)
  .describe('Present (true) when the transaction had been EXPIRED: money may have moved after all.');

function finalStatusData(status: 'SUCCEEDED' | 'FAILED') {
  return z.strictObject({
    ...transactionDataShape,
    status: z.literal(status),
    evidence: evidenceListSchema,
    lateResolution: lateResolutionSchema.optional(),
    resolvedByHand: resolvedByHandSchema.optional(),
  });
}

/** A badge as the feed publishes it (shared/domain/badges.ts Badge: the badge API's fields, `_links` dropped). */
export const badgeSchema = z
  .strictObject({
    id: z.string().min(1),
    badge_name: z.string(),
    badge_type: z.string(),
    filter: z
      .union([
        z.string(),
        z.int(),
        z.array(z.strictObject({ id: z.int(), name: z.string(), sku: z.string(), image: z.string() })),
      ])
      .describe('"all", a product id, or the products.'),
    badge_style: z.string(),
    badge_settings: z.record(z.string(), z.unknown()),
    priority: z.string(),
    status: z.string(),
    created_by: z.string(),
    valid_from: timestamp('Start of the validity period (UTC), or null.').nullable(),
    valid_to: timestamp('End of the validity period (UTC), or null.').nullable(),
    created_at: z.string().nullable().describe('As the shop writes it: YYYY-MM-DD HH:mm:ss.'),
    updated_at: z.string().nullable().describe('As the shop writes it: YYYY-MM-DD HH:mm:ss.'),
  })
  .describe('The badge, normalized.');

/** The fields a BadgeUpdated may name: the domain's own list. */
const BADGE_FIELD_NAMES = BADGE_FIELDS;

const badgeShape = {
  shop: z.string().describe('The shop id (badges.shops.<shop>).'),
  badgeId: z.string().min(1),
  observedAt: timestamp('When the relay saw the change (the read, or the scheduler tick).'),
};

const revisionSchema = z
  .int()
  .positive()
  .describe("The badge's revision in the relay: 1 when created, +1 per change.");
const activeSchema = z.boolean().describe('Whether the badge was within its validity period when observed.');

export const EVENT_DATA_SCHEMAS = {
  TransactionSucceeded: finalStatusData('SUCCEEDED'),
  TransactionFailed: finalStatusData('FAILED'),
  TransactionAmbiguous: z.strictObject({ ...transactionDataShape, status: z.literal('AMBIGUOUS') }),
  TransactionExpired: z.strictObject({
    ...transactionDataShape,
    status: z.literal('EXPIRED'),
    reason: reasonSchema.extend({ code: z.literal('NO_FINAL_ANSWER') }),
    lastProviderAnswer: z
      .strictObject({
        ...checkShape,
        providerCode: z.string().nullable().describe("The provider's code in that answer, or null."),
      })
      .describe('The last status call before the expiry (the one made at the window end).'),
    statusChecks: z.int().positive().describe('Status calls made, the last one included.'),
    evidence: evidenceListSchema.describe('Every report recorded before the window ended (may be empty).'),
  }),
  TransactionEscalated: z.strictObject({
    ...transactionDataShape,
    status: z.literal('AMBIGUOUS'),
    ambiguousSince: timestamp('When the transaction became AMBIGUOUS.'),
    lastProviderAnswer: z
      .strictObject({
        ...checkShape,
        providerCode: z.string().optional().describe("The provider's code in that answer, when it had one."),
      })
      .nullable()
      .describe('The latest status call, or null when none was made yet.'),
  }),
  TransactionConflict: z.strictObject({
    ...transactionDataShape,
    conflict: z
      .strictObject({
        kind: z
          .enum(['STATUS', 'AMOUNT_MISMATCH', 'MSISDN_MISMATCH', 'UNVERIFIED_SUCCESS', 'NOT_FOUND'])
          .describe(
            'STATUS: sources disagree on the status; AMOUNT_MISMATCH / MSISDN_MISMATCH: a success for another ' +
              'amount, currency or MSISDN; UNVERIFIED_SUCCESS: an unsigned success the status API answered FAILED; ' +
              'NOT_FOUND: the status API does not know a reference a callback reported on (check the API user).',
          ),
        detail: z.string(),
        currentStatus: statusSchema.describe("The transaction's status, unchanged by the report."),
        reportedStatus: statusSchema,
        reportedReason: reasonSchema.nullable(),
        reportedAmount: moneySchema.nullable(),
        reportedProviderTransactionId: z.string().nullable(),
        evidence: z
          .array(evidenceSchema)
          .describe('The pieces of evidence that disagree: what was known first, then what came.'),
      })
      .describe('What the transaction says and what the report said instead.'),
  }),
  CallbackOrphaned: z.strictObject({
    ...transactionDataShape,
    status: z.literal('PENDING').describe('Always PENDING: the status event of the callback follows.'),
    note: z.string(),
  }),
  C2BValidationDecided: z.strictObject({
    provider: z.literal('daraja'),
    account: z.string(),
    kind: z.literal('c2b'),
    reference: z.string().describe('The TransID.'),
    decision: z.enum(['accept', 'reject']),
    resultCode: z
      .enum(['0', 'C2B00011', 'C2B00012', 'C2B00013', 'C2B00014', 'C2B00015', 'C2B00016'])
      .describe('The ResultCode Daraja got back: "0" accepts.'),
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
      .describe('The rule that decided.'),
    detail: z.string(),
    deadlineApplied: z
      .boolean()
      .describe("The decision was not ready by the deadline; the account's default answered."),
    defaultApplied: z.boolean().describe('The default answered (deadline, or a decision source failed).'),
    sourceError: z.string().nullable().describe('Why a decision source failed, when one did.'),
    elapsedMs: z.number().nonnegative(),
    billRefNumber: z.string().nullable(),
    amount: moneySchema.nullable(),
    msisdn: z.string().nullable().describe('Masked, e.g. 25470****149.'),
    receiptId: z.string().nullable().describe('The stored receipt of the validation request.'),
    decidedAt: timestamp('When the decision was recorded.'),
    deadlineMs: z.int().positive().describe("The account's validation deadline."),
    transId: z.string().describe('The TransID (same as reference).'),
    receivedAt: timestamp('When the validation request was received.'),
  }),
  CallbackRejected: z.strictObject({
    provider: z.enum(EVENT_PROVIDERS),
    account: z.string(),
    route: z.string().nullable().describe('The route name, when the request got as far as matching one.'),
    method: z.string(),
    path: z.string().describe('The request path, path secret redacted.'),
    sourceIp: z.string(),
    httpStatus: z.int().min(400).max(599).describe('The HTTP status answered.'),
    errorCode: z.string().describe('The relay error code (docs/routes.md), e.g. UNAUTHORIZED.'),
    message: z.string(),
    quarantineId: z.uuid().describe('The id of the quarantined request.'),
    receivedAt: timestamp('When the request was received.'),
  }),
  TransactionReversed: z.strictObject({
    ...reversalShape,
    originalReceipt: z
      .string()
      .describe('The receipt of the payment that was reversed (OriginalTransactionID).'),
    reversalReceipt: z.string().nullable().describe("The reversal's own receipt (Result.TransactionID)."),
    amount: moneySchema.nullable().describe('The amount that went back.'),
    charge: moneySchema.nullable(),
    completedTime: z.string().nullable().describe("Daraja's TransCompletedTime, verbatim (yyyyMMddHHmmss)."),
    amountCheck: z
      .enum(['matches', 'differs', 'unknown'])
      .describe("The reversed amount against the transaction's: unknown when either is missing."),
    evidence: evidenceListSchema.describe('The reversal result the fact rests on.'),
  }),
  ReversalFailed: z.strictObject({
    ...reversalShape,
    originalReceipt: z.string().nullable(),
    reason: reasonSchema,
  }),
  ReversalAmbiguous: z.strictObject({
    ...reversalShape,
    originalReceipt: z.string().nullable().describe('From the echoed request, when the notice echoes it.'),
    reason: reasonSchema.describe(
      'TIMED_OUT: the request timed out in the queue; the result may still come.',
    ),
  }),
  AccountBalanceReported: z.strictObject({
    ...factShape,
    accounts: z
      .array(
        z.strictObject({
          name: z.string().describe('e.g. Working Account, Utility Account'),
          currency: z.string(),
          current: decimalStringSchema,
          available: decimalStringSchema.nullable(),
          reserved: decimalStringSchema.nullable(),
          uncleared: decimalStringSchema.nullable(),
        }),
      )
      .min(1)
      .describe("Daraja's AccountBalance string, one entry per `&`-separated account."),
    completedTime: z.string().nullable().describe("Daraja's BOCompletedTime, verbatim (yyyyMMddHHmmss)."),
  }),
  AccountBalanceFailed: z.strictObject({
    ...factShape,
    reason: reasonSchema.describe('The result code, or TIMED_OUT for a queue-timeout notice.'),
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
    previous: badgeSchema.describe('The badge before the change.'),
    changedFields: z.array(z.enum(BADGE_FIELD_NAMES)).min(1).describe('The fields that differ.'),
    active: activeSchema,
  }),
  BadgeDeleted: z.strictObject({
    ...badgeShape,
    revision: revisionSchema,
    previous: badgeSchema.describe('The badge as last read.'),
  }),
  BadgeActivated: z.strictObject({
    ...badgeShape,
    badge: badgeSchema,
    validFrom: timestamp('The valid_from that passed (also metadata.occurredAt).'),
    validTo: timestamp('The end of the period, or null.').nullable(),
  }),
  BadgeExpired: z.strictObject({
    ...badgeShape,
    badge: badgeSchema,
    validFrom: timestamp('The start of the period, or null.').nullable(),
    validTo: timestamp('The valid_to that passed (also metadata.occurredAt).'),
  }),
  CallbackSilence: z.strictObject({
    provider: z.string(),
    account: z.string(),
    silentSince: timestamp('The later of the last callback and the oldest waiting transaction.'),
    lastCallbackAt: timestamp('The last callback noted before the silence, or null.').nullable(),
    waitingTransactions: z.number().int().positive().describe('PENDING transactions waiting for a callback.'),
    silenceSeconds: z.number().positive(),
    pollEverySeconds: z.number().positive(),
    detectedAt: timestamp('The poll cycle that saw it.'),
  }),
  CallbacksResumed: z.strictObject({
    provider: z.string(),
    account: z.string(),
    silentFrom: timestamp('The silence episode began (CallbackSilence.silentSince).'),
    silentTo: timestamp('The first callback noted after it (to within a minute).'),
    durationSeconds: z.number().int().nonnegative(),
    detectedAt: timestamp('The poll cycle that saw it.'),
  }),
} satisfies Record<EventType, z.ZodType>;

export const EVENT_DESCRIPTIONS: Record<EventType, string> = {
  TransactionSucceeded:
    'A transaction reached SUCCEEDED (callback, C2B confirmation, status check or an operator). Published once ' +
    'per transaction. lateResolution: true when it had been EXPIRED.',
  TransactionFailed:
    'A transaction reached FAILED, with a reason. Published once per transaction. lateResolution: true when it ' +
    'had been EXPIRED.',
  TransactionAmbiguous:
    'The provider said the outcome is unclear, or an unsigned success awaits confirmation (reason UNCONFIRMED); ' +
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
    'check with the transaction status query).',
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
};

/** The envelope of one detail-type (`metadata.type` is that type). */
export function eventDetailSchema<T extends EventType>(type: T) {
  return z
    .strictObject({
      metadata: z.strictObject({
        id: z.uuid().describe('Deterministic for the same fact: dedupe on it.'),
        version: z.literal(EVENT_SCHEMA_VERSION),
        type: z.literal(type),
        occurredAt: timestamp(
          'When the report that caused the event was received (Badge…: observed, or the bound that passed).',
        ),
        correlationId: z
          .string()
          .describe('<provider>:<account>:<reference> (Badge…: badges:<shop>:<badgeId>)'),
        origin: z.enum(EVENT_ORIGINS).describe('How the fact reached the relay (docs/events.md#origins).'),
      }),
      data: EVENT_DATA_SCHEMAS[type] as (typeof EVENT_DATA_SCHEMAS)[T],
    })
    .meta({ title: type, description: EVENT_DESCRIPTIONS[type] });
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
export type _BuilderTypesMatchSchemas = [
  Expect<Assignable<Reason, z.infer<typeof reasonSchema>>>,
  Expect<Assignable<Money, z.infer<typeof moneySchema>>>,
  Expect<Assignable<Party, z.infer<typeof partySchema>>>,
  Expect<Same<TransactionData['status'], TransactionEventData['status']>>,
  // TransactionEventData has an index signature (Omit would erase its members): pick the schema's keys.
  Expect<
    Assignable<
      Pick<TransactionEventData, Exclude<keyof TransactionData, 'provider'>>,
      Omit<TransactionData, 'provider'>
    >
  >,
  Expect<Assignable<Badge, z.infer<typeof badgeSchema>>>,
  Expect<Same<BadgeField, (typeof BADGE_FIELD_NAMES)[number]>>,
  Expect<Same<ConflictRecord['kind'], EventData<'TransactionConflict'>['conflict']['kind']>>,
  Expect<Assignable<Evidence, z.infer<typeof evidenceSchema>>>,
  Expect<Assignable<CheckRecord, NonNullable<EventData<'TransactionEscalated'>['lastProviderAnswer']>>>,
];
