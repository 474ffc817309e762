/**
 * MoMo collection, disbursement and remittance operations: the asynchronous create → PENDING → final
 * pattern with its status GETs and callbacks, plus balance, account-holder and invoice / pre-approval
 * cancellation.
 */
import * as z from 'zod';
import type { SimContext } from '../core/context';
import { effectiveCallbackFaults, FaultHolder } from '../core/faults';
import { json, type Reply, type RequestContext } from '../core/http';
import { digits, UUID_V4 } from '../core/ids';
import { maskMsisdn } from '../core/log';
import { applyStatusFaults } from '../core/status-faults';
import { type MomoAuth, type MomoProduct, MOMO_PRODUCTS } from './auth';
import { consentFinancialBehaviour } from './consent-triggers';
import { momo5xxBody, momoError, momoErrors, spellCode } from './errors';
import {
  accountHolderOutcomeFor,
  anyOutcomeBehaviour,
  HEADER_OUTCOME_NAMES,
  headerOutcome,
  type MomoExtraOutcome,
  type BalanceOutcome,
  MOMO_BALANCE_OUTCOMES,
  MOMO_PAYEE_CANCELLATION,
  type MomoFamily,
  type MomoOutcome,
  type OutcomeBehaviour,
  outcomeBehaviour,
  type ReasonFormat,
  sandboxOutcome,
} from './outcomes';
import type { RouteAdder } from './spelling';
import {
  referenceBehaviour,
  type ReferenceOutcome,
  referenceOutcome,
  type ReferenceTriggerKind,
} from './reference-triggers';

export type MomoKind =
  | 'requesttopay'
  | 'requesttowithdraw'
  | 'invoice'
  | 'payment'
  | 'preapproval'
  | 'transfer'
  | 'deposit'
  | 'refund'
  | 'cashtransfer';

export type MomoStatus = 'PENDING' | 'SUCCESSFUL' | 'FAILED';

// ---- request bodies -------------------------------------------------------------------------------

const Party = z
  .object({ partyIdType: z.enum(['MSISDN', 'EMAIL', 'PARTY_CODE']), partyId: z.string().min(1) })
  .refine(
    (p) =>
      p.partyIdType === 'MSISDN'
        ? /^\d{5,15}$/.test(p.partyId)
        : p.partyIdType === 'EMAIL'
          ? /^[^@\s]+@[^@\s]+$/.test(p.partyId)
          : UUID_V4.test(p.partyId),
    { message: 'partyId does not match partyIdType' },
  );
type Party = z.infer<typeof Party>;

const Amount = z
  .string()
  .regex(/^\d+(\.\d{1,2})?$/, 'amount must be a positive decimal string')
  .refine((v) => Number(v) > 0, 'amount must be positive');

const Currency = z.string().regex(/^[A-Z]{3}$/, 'currency must be an ISO 4217 code');
const Text = z.string().optional();

const RequestToPayBody = z.object({
  amount: Amount,
  currency: Currency,
  externalId: z.string().optional(),
  payer: Party,
  payerMessage: Text,
  payeeNote: Text,
});

const TransferBody = z.object({
  amount: Amount,
  currency: Currency,
  externalId: z.string().optional(),
  payee: Party,
  payerMessage: Text,
  payeeNote: Text,
});

const InvoiceBody = z.object({
  externalId: z.string(),
  amount: Amount,
  currency: Currency,
  validityDuration: z.string().regex(/^\d+$/, 'validityDuration must be a number of seconds').optional(),
  intendedPayer: Party,
  payee: Party,
  description: Text,
});

const PaymentBody = z.object({
  externalTransactionId: z.string(),
  money: z.object({ amount: Amount, currency: Currency }),
  customerReference: z.string().optional(),
  serviceProviderUserName: z.string().optional(),
  couponId: z.string().optional(),
  productId: z.string().optional(),
  productOfferingId: z.string().optional(),
  receiverMessage: Text,
  senderNote: Text,
  maxNumberOfRetries: z.number().int().optional(),
  includeSenderCharges: z.boolean().optional(),
});

const PreApprovalBody = z.object({
  payer: Party,
  payerCurrency: Currency,
  payerMessage: Text,
  validityTime: z.number().int().positive().optional(),
});

/** MTN's Refund body (Disbursement API): the refunded transaction is named by `referenceIdToRefund`. */
const RefundBody = z.object({
  amount: Amount,
  currency: Currency,
  externalId: z.string().optional(),
  payerMessage: Text,
  payeeNote: Text,
  referenceIdToRefund: z.string().regex(UUID_V4, 'referenceIdToRefund must be a UUID version 4'),
});

/** MTN's CashTransfer body (Disbursement API); the payer description fields are all optional. */
const CashTransferBody = z.object({
  amount: Amount,
  currency: Currency,
  payee: Party,
  externalId: z.string().optional(),
  orginatingCountry: z.string().optional(),
  originalAmount: z.string().optional(),
  originalCurrency: z.string().optional(),
  payerMessage: Text,
  payeeNote: Text,
  payerIdentificationType: z.string().optional(),
  payerIdentificationNumber: z.string().optional(),
  payerIdentity: z.string().optional(),
  payerFirstName: z.string().optional(),
  payerSurName: z.string().optional(),
  payerLanguageCode: z.string().optional(),
  payerEmail: z.string().optional(),
  payerMsisdn: z.string().optional(),
  payerGender: z.string().optional(),
});

const CancelInvoiceBody = z.object({ externalId: z.string() });

type AnyBody = Record<string, unknown>;

interface OperationDef {
  kind: MomoKind;
  product: MomoProduct;
  path: string;
  /** MoMo Open API docs, Callback: PUT, except RequestToWithdraw-V1 and Deposit-V1 which POST. */
  callbackMethod: 'PUT' | 'POST';
  schema: z.ZodType<AnyBody>;
  family: MomoFamily;
  /** Whose MSISDN selects the sandbox outcome. */
  side: 'payer' | 'payee';
  party(b: AnyBody): Party | undefined;
  currency(b: AnyBody): string;
  /** Free texts that the 160/128-character limits and the special-character rule apply to. */
  texts(b: AnyBody): (string | undefined)[];
  amount(b: AnyBody): string | undefined;
  /** Picks the sandbox outcome from the body instead of the family's MSISDN table (refund, cash transfer). */
  outcome?(b: AnyBody): ReferenceOutcome;
  behaviour?(o: ReferenceOutcome): OutcomeBehaviour;
}

/** Refund and cash transfer: the transaction reference (`externalId`) 1–13 picks the outcome. */
const referenceTriggered = (
  kind: ReferenceTriggerKind,
  path: string,
  schema: z.ZodType<AnyBody>,
): OperationDef => ({
  kind,
  product: 'disbursement',
  path,
  // MoMo Open API docs, Callback: PUT except RequestToWithdraw-V1 and Deposit-V1, so refund V1/V2 and cash transfer PUT.
  callbackMethod: 'PUT',
  schema,
  family: 'transfer', // unused: `outcome` below replaces the MSISDN table
  side: 'payee',
  party: (b) => (kind === 'cashtransfer' ? (b.payee as Party) : undefined),
  currency: (b) => b.currency as string,
  texts: (b) => [str(b.payerMessage), str(b.payeeNote)],
  amount: (b) => b.amount as string,
  outcome: (b) => referenceOutcome(kind, b.externalId),
  behaviour: (o) => referenceBehaviour(kind, o),
});

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

const rtpLike = (kind: MomoKind, path: string, callbackMethod: 'PUT' | 'POST'): OperationDef => ({
  kind,
  product: 'collection',
  path,
  callbackMethod,
  schema: RequestToPayBody,
  family: 'requesttopay',
  side: 'payer',
  party: (b) => b.payer as Party,
  currency: (b) => b.currency as string,
  texts: (b) => [str(b.payerMessage), str(b.payeeNote)],
  amount: (b) => b.amount as string,
});

const transferLike = (
  kind: MomoKind,
  path: string,
  callbackMethod: 'PUT' | 'POST',
  family: MomoFamily,
  product: MomoProduct = 'disbursement',
): OperationDef => ({
  kind,
  product,
  path,
  callbackMethod,
  schema: TransferBody,
  family,
  side: 'payee',
  party: (b) => b.payee as Party,
  currency: (b) => b.currency as string,
  texts: (b) => [str(b.payerMessage), str(b.payeeNote)],
  amount: (b) => b.amount as string,
});

const OPERATIONS: OperationDef[] = [
  rtpLike('requesttopay', '/collection/v1_0/requesttopay', 'PUT'),
  rtpLike('requesttowithdraw', '/collection/v1_0/requesttowithdraw', 'POST'),
  rtpLike('requesttowithdraw', '/collection/v2_0/requesttowithdraw', 'PUT'),
  {
    kind: 'invoice',
    product: 'collection',
    path: '/collection/v2_0/invoice',
    callbackMethod: 'PUT',
    schema: InvoiceBody,
    family: 'requesttopay',
    side: 'payer',
    party: (b) => b.intendedPayer as Party,
    currency: (b) => b.currency as string,
    texts: (b) => [str(b.description)],
    amount: (b) => b.amount as string,
  },
  {
    kind: 'payment',
    product: 'collection',
    path: '/collection/v2_0/payment',
    callbackMethod: 'PUT',
    schema: PaymentBody,
    family: 'requesttopay',
    side: 'payer',
    // A payment names no payer; a numeric customerReference is treated as the payer MSISDN so the
    // sandbox table can still be driven.
    party: (b) => {
      const ref = str(b.customerReference);
      return ref && /^\d{5,15}$/.test(ref) ? { partyIdType: 'MSISDN', partyId: ref } : undefined;
    },
    currency: (b) => (b.money as { currency: string }).currency,
    texts: (b) => [str(b.receiverMessage), str(b.senderNote)],
    amount: (b) => (b.money as { amount: string }).amount,
  },
  {
    kind: 'preapproval',
    product: 'collection',
    path: '/collection/v2_0/preapproval',
    callbackMethod: 'PUT',
    schema: PreApprovalBody,
    family: 'preapproval',
    side: 'payer',
    party: (b) => b.payer as Party,
    currency: (b) => b.payerCurrency as string,
    texts: (b) => [str(b.payerMessage)],
    amount: () => undefined,
  },
  transferLike('transfer', '/disbursement/v1_0/transfer', 'PUT', 'transfer'),
  // Remittance transfer: the same operation under the remittance product's key and tokens.
  transferLike('transfer', '/remittance/v1_0/transfer', 'PUT', 'transfer', 'remittance'),
  transferLike('deposit', '/disbursement/v1_0/deposit', 'POST', 'requesttopay'),
  transferLike('deposit', '/disbursement/v2_0/deposit', 'PUT', 'requesttopay'),
  referenceTriggered('refund', '/disbursement/v1_0/refund', RefundBody),
  referenceTriggered('refund', '/disbursement/v2_0/refund', RefundBody),
  referenceTriggered('cashtransfer', '/disbursement/v2_0/cashtransfer', CashTransferBody),
];

const STATUS_PATHS: { path: string; product: MomoProduct; kind: MomoKind }[] = [
  { path: '/collection/v1_0/requesttopay/:ref', product: 'collection', kind: 'requesttopay' },
  { path: '/collection/v1_0/requesttowithdraw/:ref', product: 'collection', kind: 'requesttowithdraw' },
  { path: '/collection/v2_0/requesttowithdraw/:ref', product: 'collection', kind: 'requesttowithdraw' },
  { path: '/collection/v2_0/invoice/:ref', product: 'collection', kind: 'invoice' },
  { path: '/collection/v2_0/payment/:ref', product: 'collection', kind: 'payment' },
  { path: '/collection/v2_0/preapproval/:ref', product: 'collection', kind: 'preapproval' },
  { path: '/disbursement/v1_0/transfer/:ref', product: 'disbursement', kind: 'transfer' },
  { path: '/remittance/v1_0/transfer/:ref', product: 'remittance', kind: 'transfer' },
  { path: '/disbursement/v1_0/deposit/:ref', product: 'disbursement', kind: 'deposit' },
  { path: '/disbursement/v2_0/deposit/:ref', product: 'disbursement', kind: 'deposit' },
  { path: '/disbursement/v1_0/refund/:ref', product: 'disbursement', kind: 'refund' },
  { path: '/disbursement/v2_0/refund/:ref', product: 'disbursement', kind: 'refund' },
  { path: '/disbursement/v2_0/cashtransfer/:ref', product: 'disbursement', kind: 'cashtransfer' },
];

// ---- transactions ---------------------------------------------------------------------------------

export interface MomoReason {
  code: string;
  message: string;
}

export interface MomoTransaction {
  kind: MomoKind;
  product: MomoProduct;
  referenceId: string;
  apiUserId: string;
  body: AnyBody;
  callbackUrl: string | undefined;
  callbackMethod: 'PUT' | 'POST';
  outcome: MomoOutcome | ReferenceOutcome | MomoExtraOutcome;
  status: MomoStatus;
  reason: MomoReason | undefined;
  reasonFormat: ReasonFormat;
  financialTransactionId: string | undefined;
  /** A message or note of 129–160 characters is accepted, then fails with VALIDATION_ERROR. */
  textTooLong: boolean;
  faults: FaultHolder;
  createdAt: number;
  updatedAt: number;
  invoice?: { paymentReference: string; invoiceId: string; expiryDateTime: string };
  preapproval?: {
    createdTime: string;
    approvedTime?: string;
    expirationDateTime?: string;
    cancelled: boolean;
  };
}

const pad = (n: number) => String(n).padStart(2, '0');
const isoSeconds = (d: Date) => d.toISOString().slice(0, 19);
/** MoMo Open API docs, InvoiceResult: `expiryDateTime` "format YYYY-MM-DD:THH:mm:ss" (sic). */
const invoiceDate = (d: Date) =>
  `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}:T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;

function renderReason(reason: MomoReason, format: ReasonFormat): string | MomoReason {
  return format === 'string' ? reason.code : { code: reason.code, message: reason.message };
}

/**
 * The body of a status GET and of the callback (they are the same shape). No `referenceId` for
 * request-to-pay, withdraw, transfer, deposit and pre-approval: the reference travels in the URL.
 */
export function resultBody(t: MomoTransaction, status: MomoStatus = t.status): AnyBody {
  const b = t.body;
  const failed = status === 'FAILED';
  const fin = status === 'SUCCESSFUL' ? t.financialTransactionId : undefined;
  // A stale view (an earlier status than the current one) carries no reason.
  const reason = status === t.status ? t.reason : undefined;
  const rendered = reason ? renderReason(reason, t.reasonFormat) : undefined;
  switch (t.kind) {
    case 'requesttopay':
    case 'requesttowithdraw':
      return {
        financialTransactionId: fin,
        externalId: b.externalId,
        amount: b.amount,
        currency: b.currency,
        payer: b.payer,
        payerMessage: b.payerMessage,
        payeeNote: b.payeeNote,
        status: status,
        reason: rendered,
      };
    case 'transfer':
    case 'deposit':
      return {
        amount: b.amount,
        currency: b.currency,
        financialTransactionId: fin,
        externalId: b.externalId,
        payee: b.payee,
        payerMessage: b.payerMessage,
        payeeNote: b.payeeNote,
        status: status,
        reason: rendered,
      };
    case 'refund':
      return {
        amount: b.amount,
        currency: b.currency,
        financialTransactionId: fin,
        externalId: b.externalId,
        referenceIdToRefund: b.referenceIdToRefund,
        payerMessage: b.payerMessage,
        payeeNote: b.payeeNote,
        status: status,
        reason: rendered,
      };
    case 'cashtransfer':
      return {
        ...b,
        financialTransactionId: fin,
        status: status,
        reason: rendered,
      };
    case 'invoice':
      return {
        referenceId: t.referenceId,
        externalId: b.externalId,
        amount: b.amount,
        currency: b.currency,
        status: status,
        paymentReference: t.invoice?.paymentReference,
        invoiceId: t.invoice?.invoiceId,
        expiryDateTime: t.invoice?.expiryDateTime,
        payeeFirstName: 'Sand',
        payeeLastName: 'Box',
        // Invoices name their failure `errorReason`, always in object form.
        errorReason: failed && reason ? { code: reason.code, message: reason.message } : undefined,
        intendedPayer: b.intendedPayer,
        description: b.description,
      };
    case 'payment':
      return {
        referenceId: t.referenceId,
        status: status,
        financialTransactionId: fin,
        reason: reason ? { code: reason.code, message: reason.message } : undefined,
      };
    case 'preapproval':
      return {
        payer: b.payer,
        payerCurrency: b.payerCurrency,
        payerMessage: b.payerMessage,
        status: status,
        expirationDateTime: status === 'SUCCESSFUL' ? t.preapproval?.expirationDateTime : undefined,
        reason: rendered,
      };
  }
}

/** MoMo Open API docs, Callback: the callback host must be the API user's `providerCallbackHost` and not an IP. */
export function checkCallbackUrl(raw: string, providerCallbackHost: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw momoErrors.badRequest('X-Callback-Url is not a valid URL.');
  }
  const host = url.hostname.toLowerCase();
  if (isIpAddress(host) || host !== providerCallbackHost.toLowerCase()) throw momoErrors.callbackHost();
}

function isIpAddress(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':') || host.startsWith('[');
}

// ---- the module -----------------------------------------------------------------------------------

export class MomoOperations {
  readonly transactions = new Map<string, MomoTransaction>();
  private readonly balances = new Map<string, Record<MomoProduct, number>>();

  constructor(
    private readonly sim: SimContext,
    private readonly auth: MomoAuth,
  ) {}

  reset(): void {
    this.transactions.clear();
    this.balances.clear();
  }

  register(router: RouteAdder): void {
    for (const op of OPERATIONS) router.add('momo', 'POST', op.path, (ctx) => this.create(ctx, op));
    for (const s of STATUS_PATHS) {
      router.add('momo', 'GET', s.path, (ctx) => this.status(ctx, s.product, s.kind), { statusCall: true });
    }
    for (const product of MOMO_PRODUCTS) {
      router.add('momo', 'GET', `/${product}/v1_0/account/balance`, (ctx) => this.balance(ctx, product));
      router.add('momo', 'GET', `/${product}/v1_0/account/balance/:currency`, (ctx) =>
        this.balance(ctx, product),
      );
      router.add('momo', 'GET', `/${product}/v1_0/accountholder/:type/:id/active`, (ctx) =>
        this.accountHolderActive(ctx, product),
      );
      router.add('momo', 'GET', `/${product}/v1_0/accountholder/:type/:id/basicuserinfo`, (ctx) =>
        this.basicUserInfo(ctx, product),
      );
    }
    router.add('momo', 'DELETE', '/collection/v2_0/invoice/:ref', (ctx) => this.cancelInvoice(ctx));
    router.add('momo', 'DELETE', '/collection/v1_0/preapproval/:ref', (ctx) => this.cancelPreApproval(ctx));
    router.add('momo', 'GET', '/collection/v1_0/preapprovals/:type/:id', (ctx) =>
      this.approvedPreApprovals(ctx),
    );
  }

  // ---- create -------------------------------------------------------------------------------------

  private create(ctx: RequestContext, op: OperationDef): Reply {
    const { user, token } = this.auth.authenticateToken(ctx, op.product);
    const forced = ctx.header('x-sim-outcome');
    const forcedOutcome = headerOutcome(forced);
    if (forced !== undefined && !forcedOutcome) {
      throw momoErrors.badRequest(`X-Sim-Outcome must be one of ${HEADER_OUTCOME_NAMES.join(', ')}.`);
    }
    const referenceId = ctx.header('x-reference-id');
    if (!referenceId || !UUID_V4.test(referenceId)) {
      throw momoErrors.badRequest('X-Reference-Id must be a UUID version 4.');
    }
    const parsed = op.schema.safeParse(ctx.json(() => momoErrors.badRequest('A JSON body is required.')));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw momoErrors.badRequest(
        `Invalid request: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
      );
    }
    const body = parsed.data;
    let textTooLong = false;
    for (const text of op.texts(body)) {
      if (text === undefined) continue;
      if (text.length > 160)
        throw momoErrors.badRequest('Message and note texts are limited to 160 characters.');
      if (/['&]/.test(text)) throw momoErrors.badRequest('Unsupported special character in message or note.');
      if (text.length > 128) textTooLong = true;
    }
    if (this.transactions.has(referenceId)) throw momoErrors.conflict();

    const callbackUrl = ctx.header('x-callback-url');
    if (callbackUrl !== undefined) checkCallbackUrl(callbackUrl, user.providerCallbackHost);
    if (op.currency(body) !== this.sim.opts.momo.currency) throw momoErrors.currency();

    const party = op.party(body);
    const msisdn = party?.partyIdType === 'MSISDN' ? party.partyId : undefined;
    let outcome: ReferenceOutcome | MomoExtraOutcome;
    let behaviour: OutcomeBehaviour;
    const consentFailure = token.consent && consentFinancialBehaviour(token.consent.outcome);
    if (forcedOutcome) {
      outcome = forcedOutcome;
      behaviour = anyOutcomeBehaviour(forcedOutcome, op.side);
    } else if (consentFailure) {
      // A consent-based operation under one of the consent table's Financial* rows.
      outcome = 'Failed';
      behaviour = consentFailure;
    } else if (op.outcome && op.behaviour) {
      outcome = op.outcome(body);
      behaviour = op.behaviour(outcome);
    } else {
      const o = sandboxOutcome(op.family, msisdn, this.sim.opts.momo.sandboxMsisdnBase);
      outcome = o;
      behaviour = outcomeBehaviour(o, op.side);
    }
    if (behaviour.type === 'sync-error') throw momoError(behaviour.status, behaviour.code, behaviour.message);

    const now = this.sim.scheduler.now();
    const txn: MomoTransaction = {
      kind: op.kind,
      product: op.product,
      referenceId,
      apiUserId: user.id,
      body,
      callbackUrl,
      callbackMethod: op.callbackMethod,
      outcome,
      status: 'PENDING',
      reason: undefined,
      reasonFormat: 'object',
      financialTransactionId: undefined,
      textTooLong,
      faults: new FaultHolder(ctx.faults),
      createdAt: now,
      updatedAt: now,
    };
    if (op.kind === 'invoice') {
      const validity = Number(body.validityDuration ?? 3600);
      txn.invoice = {
        paymentReference: `PR-${digits(8)}`,
        invoiceId: digits(6),
        expiryDateTime: invoiceDate(new Date(now + validity * 1000)),
      };
    }
    if (op.kind === 'preapproval')
      txn.preapproval = { createdTime: new Date(now).toISOString(), cancelled: false };
    this.transactions.set(referenceId, txn);
    this.sim.later(this.sim.opts.approvalDelayMs, () => this.payerAnswers(txn, behaviour));
    return { status: 202 };
  }

  // ---- processing ---------------------------------------------------------------------------------

  private async payerAnswers(txn: MomoTransaction, behaviour: OutcomeBehaviour): Promise<void> {
    if (txn.status !== 'PENDING') return; // cancelled meanwhile
    if (txn.textTooLong) {
      return this.finish(txn, 'FAILED', {
        reason: { code: 'VALIDATION_ERROR', message: 'Payer message or note is longer than 128 characters.' },
        format: 'object',
      });
    }
    switch (behaviour.type) {
      case 'success':
        return this.finish(txn, 'SUCCESSFUL');
      case 'failed':
        return this.finish(txn, 'FAILED', {
          reason: { code: behaviour.code, message: behaviour.message },
          format: behaviour.format,
        });
      case 'unanswered': {
        const windowEnds = txn.createdAt + this.sim.scheduler.scaled(this.sim.opts.momo.approvalWindowMs);
        this.sim.later(Math.max(0, windowEnds - this.sim.scheduler.now()), () => {
          if (txn.status !== 'PENDING') return;
          return this.finish(txn, 'FAILED', {
            reason: { code: behaviour.code, message: behaviour.message },
            format: behaviour.format,
          });
        });
        return;
      }
      case 'sync-error':
        return; // never created
    }
  }

  private async finish(
    txn: MomoTransaction,
    status: 'SUCCESSFUL' | 'FAILED',
    failure?: { reason: MomoReason; format: ReasonFormat },
    callbackUrl = txn.callbackUrl,
  ): Promise<void> {
    txn.status = status;
    txn.updatedAt = this.sim.scheduler.now();
    txn.reason = failure && {
      code: spellCode(failure.reason.code, this.sim.opts.momo.errorSpelling),
      message: failure.reason.message,
    };
    if (failure) txn.reasonFormat = failure.format;
    if (status === 'SUCCESSFUL') {
      txn.financialTransactionId = digits(9);
      this.applyBalance(txn);
      if (txn.preapproval) {
        txn.preapproval.approvedTime = new Date(txn.updatedAt).toISOString();
        const validity = Number(txn.body.validityTime ?? 365 * 86400);
        txn.preapproval.expirationDateTime = isoSeconds(new Date(txn.updatedAt + validity * 1000));
      }
    }
    if (!callbackUrl) return;
    const summary = `${txn.referenceId.slice(0, 8)} ${status}${txn.reason ? ` ${txn.reason.code}` : ''}`;
    const call = {
      provider: 'momo' as const,
      kind: txn.kind,
      reference: txn.referenceId,
      url: callbackUrl,
      method: txn.callbackMethod,
      body: JSON.stringify(resultBody(txn)),
      sourceIp: this.sim.opts.momo.callbackSourceIp,
      summary,
    };
    const stale = {
      ...call,
      body: JSON.stringify(resultBody(txn, 'PENDING')),
      summary: `${txn.referenceId.slice(0, 8)} PENDING (stale)`,
    };
    await this.sim.sender.deliver(call, effectiveCallbackFaults(this.sim.faults, 'momo', txn.faults), stale);
  }

  private applyBalance(txn: MomoTransaction): void {
    const amount = Number(
      txn.kind === 'payment' ? (txn.body.money as { amount: string }).amount : (txn.body.amount ?? 0),
    );
    const b = this.balanceOf(txn.apiUserId);
    const opening = b[txn.product];
    if (txn.product === 'collection') b.collection += amount;
    else b[txn.product] -= amount;
    // The books (simulator/core/books.ts): statements and balances list exactly the money moved.
    const into = txn.product === 'collection';
    const party = (txn.body.payer ?? txn.body.payee) as { partyId?: string } | undefined;
    const booked = this.sim.books.record(
      {
        provider: 'momo',
        account: txn.apiUserId,
        subAccount: txn.product,
        id: txn.financialTransactionId ?? txn.referenceId,
        externalId: String(txn.body.externalId ?? txn.referenceId),
        time: txn.updatedAt,
        kind: into ? 'payment' : 'payout',
        amountIn: into ? amount : 0,
        amountOut: into ? 0 : amount,
        counterparty: party?.partyId ?? '',
        description: txn.kind,
        currency: String(
          (txn.body.money as { currency?: string } | undefined)?.currency ??
            txn.body.currency ??
            this.sim.opts.momo.currency,
        ),
      },
      opening,
    );
    for (const fee of booked.slice(1)) b[txn.product] -= fee.amountOut;
  }

  private balanceOf(apiUserId: string): Record<MomoProduct, number> {
    let b = this.balances.get(apiUserId);
    if (!b) {
      b = { collection: 0, disbursement: 1_000_000, remittance: 1_000_000 };
      this.balances.set(apiUserId, b);
    }
    return b;
  }

  // ---- reads --------------------------------------------------------------------------------------

  private async status(ctx: RequestContext, product: MomoProduct, kind: MomoKind): Promise<Reply> {
    const user = this.auth.authenticate(ctx, product);
    const ref = ctx.params.ref ?? '';
    if (!UUID_V4.test(ref)) throw momoErrors.badRequest('The reference id must be a UUID version 4.');
    const txn = this.transactions.get(ref);
    const fault = await applyStatusFaults(this.sim, 'momo', ctx, txn?.faults);
    if (fault) return json(fault, momo5xxBody(fault));
    // Disbursement and remittance both have transfers: a reference is found only under its own product.
    if (!txn || txn.kind !== kind || txn.product !== product || txn.apiUserId !== user.id)
      throw momoErrors.notFound();
    return json(200, resultBody(txn));
  }

  private balance(ctx: RequestContext, product: MomoProduct): Reply {
    const user = this.auth.authenticate(ctx, product);
    const currency = ctx.params.currency ?? this.sim.opts.momo.currency;
    if (currency !== this.sim.opts.momo.currency) throw momoErrors.currency();
    // The MoMo Open API documentation lists the balance outcomes but not their triggers: the simulator's choice is the header
    // `X-Sim-Balance-Outcome: <outcome name>` (an unknown name is 400).
    const wanted = ctx.header('x-sim-balance-outcome');
    const outcome = (wanted ?? 'Success') as BalanceOutcome;
    if (!MOMO_BALANCE_OUTCOMES.includes(outcome)) {
      throw momoErrors.badRequest(
        `X-Sim-Balance-Outcome must be one of ${MOMO_BALANCE_OUTCOMES.join(', ')}.`,
      );
    }
    if (outcome === 'AccountNotFound') throw momoErrors.notFound();
    this.throwAccountHolderError(outcome);
    const value =
      outcome === 'ZeroBalance' ? 0 : outcome === 'NegativeBalance' ? -250 : this.balanceOf(user.id)[product];
    return json(200, { availableBalance: String(value), currency });
  }

  private accountHolderActive(ctx: RequestContext, product: MomoProduct): Reply {
    this.auth.authenticate(ctx, product);
    const type = ctx.params.type ?? '';
    const id = ctx.params.id ?? '';
    // MoMo Open API docs: type is `msisdn` or `email` and the id must be in lower case. `party_code` is the
    // simulator's addition so the documented party-code triggers can be reached.
    if (type !== 'msisdn' && type !== 'email' && type !== 'party_code')
      throw momoErrors.badRequest('accountHolderIdType must be msisdn, email or party_code (lower case).');
    if (id !== id.toLowerCase()) throw momoErrors.badRequest('accountHolderId must be in lower case.');
    if (type === 'msisdn' && !/^\d{5,15}$/.test(id))
      throw momoErrors.badRequest('accountHolderId is not an MSISDN.');
    if (type === 'email' && !/^[^@\s]+@[^@\s]+$/.test(id))
      throw momoErrors.badRequest('accountHolderId is not an e-mail address.');
    if (type === 'party_code' && !UUID_V4.test(id))
      throw momoErrors.badRequest('accountHolderId is not a party code (UUID).');
    const outcome = accountHolderOutcomeFor(type.toUpperCase(), id, this.sim.opts.momo.sandboxMsisdnBase);
    this.throwAccountHolderError(outcome);
    return json(200, { result: outcome === 'Active' });
  }

  private basicUserInfo(ctx: RequestContext, product: MomoProduct): Reply {
    this.auth.authenticate(ctx, product);
    const type = (ctx.params.type ?? '').toUpperCase();
    const id = ctx.params.id ?? '';
    if (!['MSISDN', 'EMAIL', 'ALIAS', 'ID'].includes(type)) {
      throw momoErrors.badRequest('accountHolderIdType must be MSISDN, Email, Alias or ID.');
    }
    if (type === 'MSISDN' && !/^\d{5,15}$/.test(id))
      throw momoErrors.badRequest('accountHolderId is not an MSISDN.');
    if (type === 'EMAIL' && !/^[^@\s]+@[^@\s]+$/.test(id))
      throw momoErrors.badRequest('accountHolderId is not an e-mail address.');
    let status = 'ACTIVE';
    if (type === 'MSISDN' || type === 'EMAIL') {
      const outcome = accountHolderOutcomeFor(type, id, this.sim.opts.momo.sandboxMsisdnBase);
      if (outcome === 'NotFound') throw momoErrors.notFound();
      this.throwAccountHolderError(outcome);
      if (outcome === 'NotActive') status = 'NOT_ACTIVE';
    }
    return json(200, {
      given_name: 'Sand',
      family_name: 'Box',
      birthdate: '1976-08-13',
      locale: 'sv-SE',
      gender: 'male',
      status,
    });
  }

  private throwAccountHolderError(outcome: string): void {
    if (outcome === 'NotAllowed') throw momoErrors.notAllowed();
    if (outcome === 'NotAllowedTargetEnvironment') throw momoErrors.targetEnvironment();
    if (outcome === 'InternalProcessingError') throw momoErrors.internal();
    if (outcome === 'ServiceUnavailable') throw momoErrors.unavailable();
  }

  // ---- cancellations ------------------------------------------------------------------------------

  private async cancelInvoice(ctx: RequestContext): Promise<Reply> {
    const user = this.auth.authenticate(ctx, 'collection');
    const ref = ctx.params.ref ?? '';
    if (!UUID_V4.test(ref)) throw momoErrors.badRequest('The invoice reference must be a UUID version 4.');
    const cancelRef = ctx.header('x-reference-id');
    if (!cancelRef || !UUID_V4.test(cancelRef))
      throw momoErrors.badRequest('X-Reference-Id must be a UUID version 4.');
    const parsed = CancelInvoiceBody.safeParse(
      ctx.json(() => momoErrors.badRequest('A JSON body is required.')),
    );
    if (!parsed.success) throw momoErrors.badRequest('externalId is required.');
    const callbackUrl = ctx.header('x-callback-url');
    if (callbackUrl !== undefined) checkCallbackUrl(callbackUrl, user.providerCallbackHost);
    const txn = this.transactions.get(ref);
    if (txn?.kind !== 'invoice' || txn.apiUserId !== user.id) throw momoErrors.notFound();
    if (txn.status !== 'PENDING') throw momoErrors.badRequest('Only a pending invoice can be cancelled.');
    // The payee's cancellation: the same code and form as `X-Sim-Outcome: TransactionCanceled`.
    const { code, message, format } = MOMO_PAYEE_CANCELLATION;
    this.sim.background(() =>
      this.finish(txn, 'FAILED', { reason: { code, message }, format }, callbackUrl ?? txn.callbackUrl),
    );
    return json(200, { externalId: parsed.data.externalId });
  }

  private cancelPreApproval(ctx: RequestContext): Reply {
    const user = this.auth.authenticate(ctx, 'collection');
    const ref = ctx.params.ref ?? '';
    if (!UUID_V4.test(ref)) throw momoErrors.badRequest('The pre-approval id must be a UUID version 4.');
    const txn = this.transactions.get(ref);
    if (txn?.kind !== 'preapproval' || txn.apiUserId !== user.id) throw momoErrors.notFound();
    // MoMo Open API docs: only an approved pre-approval can be cancelled. Its status stays final (SUCCESSFUL);
    // it simply stops being listed and usable.
    if (txn.status !== 'SUCCESSFUL' || txn.preapproval?.cancelled) {
      throw momoErrors.badRequest('Only an approved pre-approval can be cancelled.');
    }
    txn.preapproval!.cancelled = true;
    return { status: 200 };
  }

  private approvedPreApprovals(ctx: RequestContext): Reply {
    const user = this.auth.authenticate(ctx, 'collection');
    const type = ctx.params.type ?? '';
    const id = ctx.params.id ?? '';
    if (!['msisdn', 'email', 'id', 'alias'].includes(type)) {
      throw momoErrors.badRequest('accountHolderIdType must be msisdn, email, id or alias.');
    }
    const list = [...this.transactions.values()]
      .filter(
        (t) =>
          t.kind === 'preapproval' &&
          t.apiUserId === user.id &&
          t.status === 'SUCCESSFUL' &&
          !t.preapproval?.cancelled &&
          (t.body.payer as Party).partyId.toLowerCase() === id.toLowerCase(),
      )
      .map((t) => ({
        preApprovalId: t.referenceId,
        toFri: `FRI:${user.id}/API`,
        fromFri: `FRI:${(t.body.payer as Party).partyId}/MSISDN`,
        fromCurrency: t.body.payerCurrency,
        createdTime: t.preapproval?.createdTime,
        approvedTime: t.preapproval?.approvedTime,
        expiryTime: t.preapproval?.expirationDateTime,
        status: 'APPROVED',
        message: t.body.payerMessage ?? '',
      }));
    return json(200, list);
  }

  snapshot(): unknown[] {
    return [...this.transactions.values()].map((t) => {
      const party = OPERATIONS.find((o) => o.kind === t.kind)?.party(t.body);
      return {
        provider: 'momo',
        kind: t.kind,
        reference: t.referenceId,
        apiUserId: t.apiUserId,
        status: t.status,
        reason: t.reason,
        outcome: t.outcome,
        msisdn: party?.partyIdType === 'MSISDN' ? maskMsisdn(party.partyId) : undefined,
        amount: OPERATIONS.find((o) => o.kind === t.kind)?.amount(t.body),
        financialTransactionId: t.financialTransactionId,
        callbackUrl: t.callbackUrl,
        callbackMethod: t.callbackMethod,
        createdAt: new Date(t.createdAt).toISOString(),
        updatedAt: new Date(t.updatedAt).toISOString(),
      };
    });
  }
}
