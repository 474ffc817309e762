import * as z from 'zod';
import { applyReport, newTransactionFromReport } from '../../domain/apply-report';
import { SchemaValidationError } from '../../domain/errors';
import { buildEvent, correlationIdOf } from '../../domain/events';
import { applyReportToStore } from '../../domain/ingest';
import type { C2BValidationRecord } from '../../domain/ports';
import type { NormalizedReport } from '../../domain/transaction';
import { type HttpResponse, json } from '../../http/types';
import { maskMsisdn } from '../../util/mask';
import { toDecimalString } from '../../util/money';
import type { RouteContext } from '../types';
import { c2bSourcesFor } from './c2b-sources';
import { type C2BValidationInput, decideC2BValidation } from './c2b-validation';
import {
  type Candidate,
  CONVERSATION_ID,
  rememberConversationId,
  resolveB2cReference,
  resolveReference,
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
import { redactSecrets } from './redact';
import {
  c2bSchema,
  type DarajaAccountSettings,
  resultSchema,
  stkCallbackSchema,
  timeoutEchoShapeSchema,
  timeoutResultShapeSchema,
} from './schema';
import { verifyDarajaSource } from './source-ip';

type Ctx = RouteContext<DarajaAccountSettings>;

/** Daraja's acknowledgements (design: routes table). */
export const DARAJA_ACK = { ResultCode: 0, ResultDesc: 'Accepted' } as const;
export const C2B_CONFIRMATION_ACK = { ResultCode: 0, ResultDesc: 'Success' } as const;

const accepted = (): HttpResponse => json(200, DARAJA_ACK);

export function validationAnswer(resultCode: string): HttpResponse {
  return resultCode === '0'
    ? json(200, { ResultCode: '0', ResultDesc: 'Accepted' })
    : json(200, { ResultCode: resultCode, ResultDesc: 'Rejected' });
}

/**
 * Every Daraja route starts here: redact credentials (a queue-timeout echo carries the
 * SecurityCredential), then check the source IP. The redacted bytes replace the raw body on the
 * request, so that a rejection after this point (IP, schema) quarantines the redacted body too.
 * Returns the body to store on the receipt.
 */
function prepare(ctx: Ctx): string {
  const redaction = redactSecrets(ctx.body);
  let stored = ctx.request.rawBody.toString('utf8');
  if (redaction.paths.length) {
    stored = JSON.stringify(redaction.value);
    ctx.body = redaction.value;
    ctx.request.rawBody = Buffer.from(stored, 'utf8');
    ctx.verification.redacted = redaction.paths;
  }
  verifyDarajaSource(ctx);
  return stored;
}

function parse<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new SchemaValidationError(`Daraja ${what} does not match the expected shape`, {
      details: { issues: z.treeifyError(parsed.error) },
    });
  }
  return parsed.data;
}

function parseTimeout(body: unknown, what: string): TimeoutNotice {
  const record = body as Record<string, unknown>;
  if (record.Result !== null && typeof record.Result === 'object') {
    return { shape: 'result', result: parse(timeoutResultShapeSchema, body, what).Result };
  }
  return { shape: 'echo', echo: parse(timeoutEchoShapeSchema, body, what) };
}

function unresolvable(what: string): never {
  throw new SchemaValidationError(`Daraja ${what} carries no id to correlate it with`);
}

export async function handleStk(ctx: Ctx): Promise<HttpResponse> {
  const storedBody = prepare(ctx);
  const body = parse(stkCallbackSchema, ctx.body, 'STK callback');
  await ctx.services.ingest(ctx, normalizeStk(ctx.account.id, ctx.account.settings.currency, body), {
    storedBody,
  });
  return accepted();
}

export async function handleB2cResult(ctx: Ctx): Promise<HttpResponse> {
  const storedBody = prepare(ctx);
  const { Result } = parse(resultSchema, ctx.body, 'B2C result');
  const { store, log } = ctx.services;
  const resolution = (await resolveB2cReference(store, ctx.account.id, Result)) ?? unresolvable('B2C result');
  const draft = normalizeB2cResult(
    ctx.account.id,
    ctx.account.settings.currency,
    resolution.reference,
    Result,
  );
  const { outcome } = await ctx.services.ingest(ctx, draft, { storedBody });
  if (outcome.kind === 'write') {
    await rememberConversationId(
      store,
      log,
      ctx.account.id,
      Result,
      resolution.reference,
      ctx.request.receivedAt.toISOString(),
    );
  }
  return accepted();
}

async function handleTimeout(ctx: Ctx, kind: 'b2c' | 'status'): Promise<HttpResponse> {
  const storedBody = prepare(ctx);
  const what = kind === 'b2c' ? 'B2C queue-timeout notice' : 'status queue-timeout notice';
  const notice = parseTimeout(ctx.body, what);
  const ids = notice.shape === 'result' ? notice.result : notice.echo;
  const { store, log } = ctx.services;
  const resolution =
    (kind === 'b2c'
      ? await resolveB2cReference(store, ctx.account.id, ids)
      : await resolveReference(store, ctx.account.id, [
          { via: 'reference', value: ids.OriginatorConversationID },
          { via: CONVERSATION_ID, value: ids.ConversationID },
          { via: 'reference', value: ids.TransactionID },
        ])) ?? unresolvable(what);
  const draft = normalizeTimeout(
    ctx.account.id,
    ctx.account.settings.currency,
    kind,
    resolution.reference,
    notice,
  );
  const { outcome } = await ctx.services.ingest(ctx, draft, { storedBody });
  if (outcome.kind === 'write' && kind === 'b2c') {
    await rememberConversationId(
      store,
      log,
      ctx.account.id,
      ids,
      resolution.reference,
      ctx.request.receivedAt.toISOString(),
    );
  }
  return accepted();
}

export const handleB2cTimeout = (ctx: Ctx) => handleTimeout(ctx, 'b2c');
export const handleStatusTimeout = (ctx: Ctx) => handleTimeout(ctx, 'status');

/**
 * A status result is about the queried transaction, not about the query: its ResultParameters carry the
 * original OriginatorConversationID / ConversationID / ReceiptNo, the top level the query's own ids.
 */
export async function handleStatusResult(ctx: Ctx): Promise<HttpResponse> {
  const storedBody = prepare(ctx);
  const { Result } = parse(resultSchema, ctx.body, 'transaction-status result');
  const params = collectParams(Result.ResultParameters?.ResultParameter);
  const original = {
    OriginatorConversationID: first(params, 'OriginatorConversationID'),
    ConversationID: first(params, 'ConversationID'),
  };
  const candidates: Candidate[] = [
    { via: 'reference', value: original.OriginatorConversationID },
    { via: CONVERSATION_ID, value: original.ConversationID },
    { via: 'reference', value: first(params, 'ReceiptNo') },
    { via: 'reference', value: Result.OriginatorConversationID },
    { via: CONVERSATION_ID, value: Result.ConversationID },
  ];
  const { store, log } = ctx.services;
  const resolution =
    (await resolveReference(store, ctx.account.id, candidates)) ?? unresolvable('status result');
  const draft = normalizeStatusResult(
    ctx.account.id,
    ctx.account.settings.currency,
    resolution.reference,
    Result,
  );
  const { outcome } = await ctx.services.ingest(ctx, draft, { storedBody });
  if (outcome.kind === 'write' && resolution.reference === original.OriginatorConversationID) {
    await rememberConversationId(
      store,
      log,
      ctx.account.id,
      original,
      resolution.reference,
      ctx.request.receivedAt.toISOString(),
    );
  }
  return accepted();
}

function maskedMsisdn(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  return value.includes('*') ? value : maskMsisdn(value);
}

/** Time kept back from the decision for the two writes that must happen before the answer. */
export function decisionBudgetMs(deadlineMs: number): number {
  return deadlineMs - Math.min(500, Math.floor(deadlineMs / 5));
}

/**
 * C2B validation: store the request (in parallel with deciding), decide within the deadline, record the
 * decision (conditional: one per TransID, one C2BValidationDecided), answer in Daraja's format. A
 * repeated validation of the same TransID is answered with the decision that was recorded first.
 */
export async function handleC2bValidation(ctx: Ctx): Promise<HttpResponse> {
  const started = performance.now();
  const storedBody = prepare(ctx);
  const payload = parse(c2bSchema, ctx.body, 'C2B validation request');
  const { store, log, clock } = ctx.services;
  const settings = ctx.account.settings;
  const key = { provider: DARAJA, account: ctx.account.id, reference: payload.TransID };
  const receiptPromise = ctx.services.storeReceipt(ctx, key, storedBody);
  // Awaited below; this only keeps an early failure from being reported as unhandled meanwhile.
  receiptPromise.catch(() => undefined);

  const input: C2BValidationInput = {
    transId: payload.TransID,
    transAmount: payload.TransAmount,
    businessShortCode: payload.BusinessShortCode,
    billRefNumber: payload.BillRefNumber ?? '',
    msisdn: payload.MSISDN ?? '',
    firstName: payload.FirstName ?? '',
    lastName: payload.LastName ?? '',
  };
  const outcome = await decideC2BValidation(
    input,
    { ...settings.c2b, shortCode: settings.shortCode },
    c2bSourcesFor(settings.c2b, { store, account: ctx.account.id, payload: ctx.body }),
    { budgetMs: decisionBudgetMs(settings.c2b.deadlineMs) - (performance.now() - started) },
  );
  const receipt = await receiptPromise;

  const receivedAt = ctx.request.receivedAt.toISOString();
  const amountValue = toDecimalString(payload.TransAmount);
  const record: Omit<C2BValidationRecord, 'outbox'> = {
    key,
    decision: outcome.decision,
    resultCode: outcome.resultCode,
    rule: outcome.rule,
    detail: outcome.detail,
    deadlineApplied: outcome.deadlineApplied,
    defaultApplied: outcome.defaultApplied,
    sourceError: outcome.sourceError,
    elapsedMs: outcome.elapsedMs,
    billRefNumber: payload.BillRefNumber ?? undefined,
    amount: amountValue ? { value: amountValue, currency: settings.currency } : undefined,
    msisdn: maskedMsisdn(payload.MSISDN),
    receiptId: receipt.receiptId,
    decidedAt: clock.now().toISOString(),
    revision: 1,
  };
  const event = buildEvent(
    'C2BValidationDecided',
    correlationIdOf({ key }),
    'c2b-validation',
    'callback',
    receivedAt,
    {
      provider: DARAJA,
      account: ctx.account.id,
      kind: 'c2b',
      reference: payload.TransID,
      decision: record.decision,
      resultCode: record.resultCode,
      rule: record.rule,
      detail: record.detail,
      deadlineApplied: record.deadlineApplied,
      defaultApplied: record.defaultApplied,
      sourceError: record.sourceError ?? null,
      elapsedMs: record.elapsedMs,
      deadlineMs: settings.c2b.deadlineMs,
      transId: payload.TransID,
      billRefNumber: record.billRefNumber ?? null,
      amount: record.amount ?? null,
      msisdn: record.msisdn ?? null,
      receiptId: record.receiptId,
      receivedAt,
    },
  );
  const { written, record: standing } = await store.recordC2BValidation({ ...record, outbox: [event] });
  log.info('daraja c2b validation answered', {
    account: ctx.account.id,
    transId: payload.TransID,
    decision: standing.decision,
    resultCode: standing.resultCode,
    rule: standing.rule,
    deadlineApplied: standing.deadlineApplied,
    elapsedMs: outcome.elapsedMs,
    repeated: !written,
    msisdn: record.msisdn,
  });
  return validationAnswer(standing.resultCode);
}

/**
 * C2B confirmation: the payment completed, so it creates a SUCCEEDED `c2b` transaction keyed by TransID,
 * linked to its validation decision. Nobody registers C2B payments, so the first confirmation creates the
 * transaction directly (conditional create: no CallbackOrphaned, one TransactionSucceeded); a repeat, or a
 * transaction that already exists, goes through the generic apply (a no-op for a repeat). When a
 * validation recorded another amount, the confirmation is an AMOUNT_MISMATCH conflict, never a success.
 */
export async function handleC2bConfirmation(ctx: Ctx): Promise<HttpResponse> {
  const storedBody = prepare(ctx);
  const payload = parse(c2bSchema, ctx.body, 'C2B confirmation');
  const draft = normalizeC2bConfirmation(ctx.account.id, ctx.account.settings.currency, payload);
  if (!draft.amount)
    throw new SchemaValidationError(
      `Daraja C2B confirmation TransAmount "${payload.TransAmount}" is not an amount`,
    );
  const { store, clock, settings } = ctx.services;
  const [receipt, validation] = await Promise.all([
    ctx.services.storeReceipt(ctx, draft.key, storedBody),
    store.getC2BValidation(draft.key),
  ]);
  const link: Record<string, string> = validation
    ? {
        ValidationDecision: validation.decision,
        ValidationResultCode: validation.resultCode,
        ValidationRule: validation.rule,
        ValidationReceiptId: validation.receiptId,
      }
    : {};
  const report: NormalizedReport = {
    ...draft,
    attributes: { ...draft.attributes, ...link },
    receivedAt: ctx.request.receivedAt.toISOString(),
    origin: 'callback',
    receiptId: receipt.receiptId,
  };
  const applyCtx = {
    now: clock.now().toISOString(),
    reconcileWindowSeconds: settings.reconcileWindowSeconds,
  };
  // The link is part of the new transaction itself, so it is kept even when the report becomes a conflict.
  const base = {
    ...newTransactionFromReport(report, applyCtx),
    amount: validation?.amount ?? report.amount,
    attributes: link,
  };
  const outcome = applyReport(base, report, applyCtx);
  const created =
    outcome.kind === 'write' && (await store.createTransaction({ ...outcome.next, revision: 1 }));
  if (!created) await applyReportToStore(store, report, settings, clock);
  return json(200, C2B_CONFIRMATION_ACK);
}
