import * as z from '../../util/zod';
import { SchemaValidationError } from '../../domain/errors';
import { heldAsOtherAnswer } from '../../domain/status-question';
import { maskMsisdn } from '../../util/mask';
import { toDecimalString } from '../../util/money';
import type { CallbackInput, CorrelationCandidate, ParsedCallback, ReportIntent } from '../types';
import {
  C2B_VALIDATION_NAMESPACE,
  C2B_VALIDATION_USE_CASE,
  type C2BValidationQuestion,
} from './c2b-question';
import { c2bDeadlineQuestion } from './c2b-decision';
import {
  CONVERSATION_ID,
  type OwnQueryAnswer,
  RECEIPT,
  readStatusQueryOccasion,
  REVERSAL_QUESTION,
  STATUS_QUERY,
  statusAnswerMismatch,
  statusQueryKeys,
  verifiedStatusQueryReference,
} from './correlation';
import {
  collectParams,
  DARAJA,
  first,
  normalizeB2cResult,
  normalizeC2bConfirmation,
  normalizeStatusResult,
  normalizeStk,
  normalizeTimeout,
  type TimeoutNotice,
} from './normalize';
import {
  c2bSchema,
  type DarajaAccountSettings,
  resultSchema,
  stkCallbackSchema,
  timeoutEchoShapeSchema,
  timeoutResultShapeSchema,
} from './schema';

type Input = CallbackInput<DarajaAccountSettings>;

/** A body through its schema, or SchemaValidationError naming what did not match. */
export function parse<S extends z.ZodMiniType>(schema: S, body: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new SchemaValidationError(`Daraja ${what} does not match the expected shape`, {
      details: { issues: z.treeifyError(parsed.error) },
    });
  }
  return parsed.data;
}

/**
 * A report intent with what the ingest does not read yet (proposed ReportIntent members, see the README's
 * "Status API" and "Correlation"): `ownQuery`, the report answers the relay's own status query and what it
 * claims (correlation.ts); `samePaymentAs`, other transactions the same payment may already be recorded under.
 */
export type DarajaReportIntent = ReportIntent & {
  ownQuery?: OwnQueryAnswer;
  samePaymentAs?: readonly CorrelationCandidate[];
};

const reports = (...intents: ReportIntent[]): ParsedCallback => ({ type: 'reports', reports: intents });

/** A success's M-Pesa receipt, recorded as an alias of its transaction (see correlation.ts RECEIPT). */
function receiptAlias(draft: { status: string; providerTransactionId: string | undefined }) {
  return draft.status === 'SUCCEEDED' && draft.providerTransactionId
    ? [{ namespace: RECEIPT, value: draft.providerTransactionId }]
    : [];
}

/**
 * STK result, keyed by its CheckoutRequestID (the registered transaction). A success names the `c2b`
 * transaction its receipt may already have been born as (`samePaymentAs`: a C2B confirmation of this
 * payment that arrived first is keyed by TransID = MpesaReceiptNumber), so the ingest settles the STK
 * transaction without a second TransactionSucceeded for one payment. Its receipt is `receiptConfirmable`:
 * a push the STK query settled first learns it from Daraja's answer about it, never from this body.
 */
export function parseStk(input: Input): ParsedCallback {
  const body = parse(stkCallbackSchema, input.body, 'STK callback');
  const draft = normalizeStk(input.account.id, input.account.settings.currency, body);
  const aliases = receiptAlias(draft);
  const intent: DarajaReportIntent = {
    draft,
    aliases,
    ...(aliases.length
      ? {
          samePaymentAs: [{ via: 'reference', value: draft.providerTransactionId }],
          // The STK query that may have settled the push first answers no receipt: this one is asked about.
          receiptConfirmable: true,
        }
      : {}),
  };
  return reports(intent);
}

/**
 * B2C results and timeouts: OriginatorConversationID when present, else the ConversationID alias, else
 * the ConversationID or TransactionID themselves. The first report carrying both ids teaches the alias.
 */
function b2cCandidates(ids: {
  OriginatorConversationID?: string | null;
  ConversationID?: string | null;
  TransactionID?: string | null;
}) {
  if (ids.OriginatorConversationID) return [{ via: 'reference', value: ids.OriginatorConversationID }];
  return [
    { via: CONVERSATION_ID, value: ids.ConversationID },
    { via: 'reference', value: ids.ConversationID },
    { via: 'reference', value: ids.TransactionID },
  ];
}

function conversationAlias(ids: {
  OriginatorConversationID?: string | null;
  ConversationID?: string | null;
}) {
  return ids.OriginatorConversationID && ids.ConversationID
    ? [{ namespace: CONVERSATION_ID, value: ids.ConversationID }]
    : [];
}

function parsePayoutResult(input: Input, kind: 'b2c' | 'b2b'): ParsedCallback {
  const { Result } = parse(resultSchema, input.body, `${kind.toUpperCase()} result`);
  const draft = normalizeB2cResult(input.account.id, input.account.settings.currency, '', Result, kind);
  return reports({
    draft,
    correlate: b2cCandidates(Result),
    aliases: [...conversationAlias(Result), ...receiptAlias(draft)],
  });
}

function parseTimeoutNotice(body: Record<string, unknown>, what: string): TimeoutNotice {
  if (body.Result !== null && typeof body.Result === 'object') {
    return { shape: 'result', result: parse(timeoutResultShapeSchema, body, what).Result };
  }
  return { shape: 'echo', echo: parse(timeoutEchoShapeSchema, body, what) };
}

export const parseB2cResult = (input: Input) => parsePayoutResult(input, 'b2c');
/** B2B (business to business, Daraja's B2B documentation): B2C's shape, correlated the same way. */
export const parseB2bResult = (input: Input) => parsePayoutResult(input, 'b2b');

function parseTimeout(input: Input, kind: 'b2c' | 'b2b' | 'status'): ParsedCallback {
  const what = `${kind === 'status' ? 'status' : kind.toUpperCase()} queue-timeout notice`;
  const notice = parseTimeoutNotice(input.body, what);
  const ids = notice.shape === 'result' ? notice.result : notice.echo;
  const draft = normalizeTimeout(input.account.id, input.account.settings.currency, kind, '', notice);
  if (kind !== 'status')
    return reports({ draft, correlate: b2cCandidates(ids), aliases: conversationAlias(ids) });
  const rawOccasion =
    notice.shape === 'echo'
      ? (input.body as { Occasion?: unknown }).Occasion
      : first(collectParams(notice.result.ReferenceData?.ReferenceItem), 'Occasion');
  const occasion = typeof rawOccasion === 'string' ? rawOccasion : undefined;
  const token = readStatusQueryOccasion(occasion);
  const asked = token
    ? verifiedStatusQueryReference(token, statusQueryKeys(input.account), input.account.id, [])
    : undefined;
  const intent: DarajaReportIntent = {
    draft,
    correlate: [
      // The relay's own query first: its verified token, then the ids the poller recorded.
      ...(asked ? [{ via: 'reference', value: asked }] : []),
      { via: STATUS_QUERY, value: ids.ConversationID },
      { via: STATUS_QUERY, value: ids.OriginatorConversationID },
      { via: 'reference', value: ids.OriginatorConversationID },
      { via: CONVERSATION_ID, value: ids.ConversationID },
      { via: RECEIPT, value: ids.TransactionID },
      { via: 'reference', value: ids.TransactionID },
      { via: 'reference', value: token ? undefined : occasion },
    ],
    // A status query's timeout says nothing about the payment, whoever made the query (a forged or a
    // partner's notice included): stored with the transaction's receipts, never applied.
    saysNothing: true,
  };
  return reports(intent);
}

export const parseB2cTimeout = (input: Input) => parseTimeout(input, 'b2c');
export const parseB2bTimeout = (input: Input) => parseTimeout(input, 'b2b');
export const parseStatusTimeout = (input: Input) => parseTimeout(input, 'status');

/**
 * A status result is about the queried transaction, not about the query: its ResultParameters carry the
 * original OriginatorConversationID / ConversationID / ReceiptNo, the top level the query's own ids.
 *
 * The answer to the relay's own query carries the token the query sent in `Occasion`
 * (correlation.ts statusQueryOccasion), keyed by the API consumer secret. Where it verifies (a process
 * holding the account's API credentials), it names the reference asked about: the result is placed there
 * and marked `ownQuery` (with what it claims: receipt, amount). That is a correlation aid, not evidence:
 * the ingest counts a result as the relay's status answer (origin poll) only when it comes through the
 * stored query record (`alias:StatusQuery`) of that same reference and names what that record says the
 * query asked (`answersAbout`: the original OriginatorConversationID, the receipt as TransactionID);
 * anything else is a callback's claim, with or without a token.
 * A final answer whose ids name another transaction (statusAnswerMismatch) is not the transaction's
 * answer: it is placed on the reference as AMBIGUOUS (CONFLICTING_REPORTS, `StatusResultMismatch`),
 * without its receipt, and never as the relay's own answer.
 *
 * Without a verified token (a partner's own query, an answer to an older relay), candidates in order: the
 * relay's own query (alias `StatusQuery`, recorded by the poller from the query's synchronous answer), the
 * receipt alias (a partner's query about a payment the relay saw succeed), the original ids, the receipt
 * itself, the Occasion, then the query's own ids. So a result is applied to the transaction it is about,
 * never to a new orphan.
 */
export function parseStatusResult(input: Input): ParsedCallback {
  const { Result } = parse(resultSchema, input.body, 'transaction-status result');
  const params = collectParams(Result.ResultParameters?.ResultParameter);
  // Safaricom's v1 pages spell the original's ids with spaces ("Originator Conversation ID"): both are read.
  const original = {
    OriginatorConversationID: first(params, 'OriginatorConversationID', 'Originator Conversation ID'),
    ConversationID: first(params, 'ConversationID', 'Conversation ID'),
  };
  const receiptNo = first(params, 'ReceiptNo');
  const occasion = first(collectParams(Result.ReferenceData?.ReferenceItem), 'Occasion');
  const draft = normalizeStatusResult(input.account.id, input.account.settings.currency, '', Result);
  const token = readStatusQueryOccasion(occasion);
  const asked = token
    ? verifiedStatusQueryReference(token, statusQueryKeys(input.account), input.account.id, [
        original.OriginatorConversationID,
        receiptNo,
      ])
    : undefined;
  const ownQuery = [
    { via: STATUS_QUERY, value: Result.ConversationID },
    { via: STATUS_QUERY, value: Result.OriginatorConversationID },
  ];
  // What the result is about, under the names the query asks with (api-client.ts statusQueryTarget): the
  // ingest compares them with what the query record says was asked before it counts as the relay's answer.
  const answersAbout = {
    OriginatorConversationID: original.OriginatorConversationID,
    TransactionID: draft.providerTransactionId,
  };
  // About a held reversal (its token's kind, verified or not): kept for the query's record, never applied;
  // its receipt joins the payment the token names.
  if (token?.kind === REVERSAL_QUESTION)
    return reports({
      draft,
      correlate: [...ownQuery, { via: 'reference', value: asked ?? token.reference }],
      aboutHeld: true,
    });
  if (token && asked) {
    const final = draft.status === 'SUCCEEDED' || draft.status === 'FAILED';
    const mismatch = final
      ? statusAnswerMismatch(
          { kind: token.kind, reference: asked },
          {
            originatorConversationId: original.OriginatorConversationID,
            receipt: draft.providerTransactionId,
          },
        )
      : undefined;
    if (mismatch) {
      return reports({
        draft: heldAsOtherAnswer(draft, mismatch, asked),
        correlate: [{ via: 'reference', value: asked }],
      });
    }
    const intent: DarajaReportIntent = {
      draft: { ...draft, attributes: { ...draft.attributes, StatusQueryReference: asked } },
      correlate: [...ownQuery, { via: 'reference', value: asked }],
      aliases: [...conversationAlias(original), ...receiptAlias(draft)],
      answersQuery: true,
      answersAbout,
      ownQuery: {
        reference: asked,
        claims: { providerTransactionId: draft.providerTransactionId, amount: draft.amount },
      },
    };
    return reports(intent);
  }
  return reports({
    draft,
    correlate: [
      ...ownQuery,
      { via: RECEIPT, value: receiptNo },
      { via: 'reference', value: original.OriginatorConversationID },
      { via: CONVERSATION_ID, value: original.ConversationID },
      { via: 'reference', value: receiptNo },
      { via: 'reference', value: token ? undefined : occasion },
      { via: 'reference', value: Result.OriginatorConversationID },
      { via: CONVERSATION_ID, value: Result.ConversationID },
    ],
    aliases: [...conversationAlias(original), ...receiptAlias(draft)],
    answersQuery: true,
    answersAbout,
  });
}

function maskedMsisdn(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  return value.includes('*') ? value : maskMsisdn(value);
}

/** C2B validation: a question the app's decision use case answers within the deadline (c2b-decision.ts). */
export function parseC2bValidation(input: Input): ParsedCallback {
  const payload = parse(c2bSchema, input.body, 'C2B validation request');
  const settings = input.account.settings;
  const amount = toDecimalString(payload.TransAmount);
  const question: C2BValidationQuestion = {
    key: { provider: DARAJA, account: input.account.id, reference: payload.TransID },
    input: {
      transId: payload.TransID,
      transAmount: payload.TransAmount,
      businessShortCode: payload.BusinessShortCode,
      billRefNumber: payload.BillRefNumber ?? '',
      msisdn: payload.MSISDN ?? '',
      firstName: payload.FirstName ?? '',
      lastName: payload.LastName ?? '',
      transactionType: payload.TransactionType ?? '',
    },
    rules: { ...settings.c2b, shortCode: settings.shortCode },
    deadlineMs: settings.c2b.deadlineMs,
    partner: settings.c2b.partner,
    knownAccounts: settings.c2b.knownAccounts,
    payload: input.body,
    amount: amount ? { value: amount, currency: settings.currency } : undefined,
    billRefNumber: payload.BillRefNumber ?? undefined,
    msisdn: maskedMsisdn(payload.MSISDN),
  };
  return { type: 'decision', useCase: C2B_VALIDATION_USE_CASE, question: c2bDeadlineQuestion(question) };
}

/**
 * C2B confirmation: the payment completed. An STK payment to a pay-bill also reaches the C2B confirmation
 * URL with the same receipt (TransID = MpesaReceiptNumber): the receipt alias is tried first, so such a
 * confirmation lands on the STK transaction (same status: no second success). Only when nothing matches
 * is it born as a SUCCEEDED `c2b` transaction keyed by TransID, linked to its validation decision. When
 * the validation recorded another amount, the confirmation is an AMOUNT_MISMATCH conflict, never a success.
 */
export function parseC2bConfirmation(input: Input): ParsedCallback {
  const payload = parse(c2bSchema, input.body, 'C2B confirmation');
  const draft = normalizeC2bConfirmation(input.account.id, input.account.settings.currency, payload);
  if (!draft.amount) throw new SchemaValidationError('Daraja C2B confirmation TransAmount is not an amount');
  return reports({
    draft,
    correlate: [
      { via: RECEIPT, value: payload.TransID },
      { via: 'reference', value: payload.TransID },
    ],
    born: true,
    link: { namespace: C2B_VALIDATION_NAMESPACE, id: payload.TransID },
  });
}
