import * as z from 'zod';
import type { RelayConfig } from '../config/schema';
import { accountKey } from '../config/schema';
import { findProvider } from '../providers/registry';
import { toDecimalString } from '../util/money';
import { checkUrlRules, describeViolations } from '../util/url-rules';
import {
  InvalidCallbackUrlError,
  InvalidReferenceError,
  RegistrationConflictError,
  SchemaValidationError,
  StorageUnavailableError,
  TransactionNotFoundError,
  UnknownAccountError,
  UnknownKindError,
} from './errors';
import type { Clock, ReceiptSummary, TransactionStore } from './ports';
import type { TransactionKey, TransactionRecord } from './transaction';

const amountSchema = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const decimal = toDecimalString(v);
  if (decimal === undefined || decimal.startsWith('-') || decimal === '0') {
    ctx.addIssue({ code: 'custom', message: 'amount must be a positive decimal number' });
    return z.NEVER;
  }
  return decimal;
});

export const registrationSchema = z
  .object({
    provider: z.string().min(1),
    account: z.string().min(1),
    kind: z.string().min(1),
    reference: z.string().min(1).max(200),
    amount: amountSchema.optional(),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'currency must be an ISO 4217 code like KES')
      .optional(),
    msisdn: z
      .string()
      .regex(/^\+?\d{6,15}$/, 'msisdn must be digits, optionally with a leading +')
      .optional(),
    externalId: z.string().min(1).max(200).optional(),
    expiresInSeconds: z
      .number()
      .int()
      .positive()
      .max(90 * 86_400)
      .optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type Registration = z.infer<typeof registrationSchema>;

export interface ManagementDeps {
  config: RelayConfig;
  store: TransactionStore;
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
}

export function toView(tx: TransactionRecord): TransactionView {
  return {
    provider: tx.key.provider,
    account: tx.key.account,
    reference: tx.key.reference,
    kind: tx.kind,
    status: tx.status,
    registered: tx.registered,
    amount: tx.amount ?? null,
    msisdn: tx.msisdn ?? null,
    externalId: tx.externalId ?? null,
    providerTransactionId: tx.providerTransactionId ?? null,
    reason: tx.reason ?? null,
    party: tx.party ?? null,
    metadata: tx.metadata ?? null,
    attributes: tx.attributes ?? {},
    createdAt: tx.createdAt,
    updatedAt: tx.updatedAt,
    reconcileUntil: tx.reconcileUntil,
    revision: tx.revision,
  };
}

export interface RegistrationResult {
  created: boolean;
  transaction: TransactionView;
  callbackUrl: string | undefined;
}

function sameRegistration(tx: TransactionRecord, r: Registration): boolean {
  return (
    tx.kind === r.kind &&
    (tx.amount?.value ?? undefined) === r.amount &&
    (tx.amount?.currency ?? undefined) === r.currency &&
    tx.msisdn === r.msisdn &&
    tx.externalId === r.externalId
  );
}

/**
 * Registers a transaction the partner initiated. Identical repeats answer 200 with the stored
 * state; a callback that arrived first (an orphan) is adopted rather than refused.
 */
export async function registerTransaction(deps: ManagementDeps, input: unknown): Promise<RegistrationResult> {
  const parsed = registrationSchema.safeParse(input);
  if (!parsed.success) {
    throw new SchemaValidationError('Invalid transaction registration', {
      details: { issues: z.treeifyError(parsed.error) },
    });
  }
  const r = parsed.data;
  const provider = findProvider(r.provider);
  if (!provider) throw new UnknownAccountError(`Unknown provider "${r.provider}"`);
  const account = deps.config.accounts.get(accountKey(r.provider, r.account));
  if (!account)
    throw new UnknownAccountError(`No ${provider.displayName} account "${r.account}" is configured`);
  if (!provider.registration.kinds.includes(r.kind)) {
    throw new UnknownKindError(
      `Unknown ${provider.displayName} kind "${r.kind}"; expected one of ${provider.registration.kinds.join(', ')}`,
    );
  }
  const referenceProblem = provider.registration.validateReference(r.reference);
  if (referenceProblem) throw new InvalidReferenceError(referenceProblem);
  const reference = provider.registration.normalizeReference?.(r.reference) ?? r.reference;
  const key: TransactionKey = { provider: provider.id, account: account.id, reference };

  const callbackUrl = provider.registration.callbackUrl?.({
    baseUrl: deps.config.publicBaseUrl,
    account,
    kind: r.kind,
    reference,
  });
  if (callbackUrl) {
    const violations = checkUrlRules(callbackUrl, deps.config.urlRules);
    if (violations.length)
      throw new InvalidCallbackUrlError(
        `Generated callback URL breaks the URL rules: ${describeViolations(violations)}`,
      );
  }

  const now = deps.clock.now().toISOString();
  const windowSeconds = r.expiresInSeconds ?? deps.config.reconciliation.windowSeconds;
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await deps.store.getTransaction(key);
    if (!current) {
      const tx: TransactionRecord = {
        key,
        kind: r.kind,
        status: 'PENDING',
        registered: true,
        amount: r.amount ? { value: r.amount, currency: r.currency } : undefined,
        msisdn: r.msisdn,
        externalId: r.externalId,
        providerTransactionId: undefined,
        reason: undefined,
        party: r.msisdn ? { idType: 'MSISDN', id: r.msisdn } : undefined,
        metadata: r.metadata,
        attributes: {},
        createdAt: now,
        updatedAt: now,
        reconcileUntil: new Date(Date.parse(now) + windowSeconds * 1000).toISOString(),
        revision: 1,
        transitions: [],
        conflicts: [],
        events: [],
        outbox: [],
      };
      if (await deps.store.createTransaction(tx))
        return { created: true, transaction: toView(tx), callbackUrl };
      continue;
    }
    if (current.registered) {
      if (sameRegistration(current, r)) return { created: false, transaction: toView(current), callbackUrl };
      throw new RegistrationConflictError(
        `Transaction ${provider.id}/${account.id}/${reference} is already registered with different details`,
        { details: { existing: toView(current) } },
      );
    }
    // A callback beat the registration (fast sandboxes do this): adopt the orphan, keep what it reported.
    const adopted: TransactionRecord = {
      ...current,
      registered: true,
      kind: r.kind,
      amount: r.amount ? { value: r.amount, currency: r.currency } : current.amount,
      msisdn: r.msisdn ?? current.msisdn,
      externalId: r.externalId ?? current.externalId,
      metadata: r.metadata ?? current.metadata,
      updatedAt: now,
      revision: current.revision + 1,
      outbox: [],
    };
    if (await deps.store.replaceTransaction(adopted, current.revision)) {
      return { created: false, transaction: toView(adopted), callbackUrl };
    }
  }
  throw new StorageUnavailableError('could not register the transaction: too much contention');
}

export type HistoryEntry =
  | { at: string; type: 'registered' | 'first-seen'; detail: string }
  | {
      at: string;
      type: 'callback';
      receiptId: string;
      route: string;
      method: string;
      deliveries: number;
      sourceIp: string;
      lastReceivedAt: string;
      verification: Record<string, unknown>;
    }
  | { at: string; type: 'transition'; from: string; to: string; origin: string; receiptId: string | null }
  | {
      at: string;
      type: 'conflict';
      kind: string;
      reportedStatus: string;
      detail: string;
      origin: string;
      receiptId: string | null;
    }
  | { at: string; type: 'event'; eventId: string; eventType: string };

export async function getTransaction(
  deps: ManagementDeps,
  key: TransactionKey,
): Promise<{ transaction: TransactionView; history: HistoryEntry[] }> {
  const reference =
    findProvider(key.provider)?.registration.normalizeReference?.(key.reference) ?? key.reference;
  const normalizedKey = { ...key, reference };
  const tx = await deps.store.getTransaction(normalizedKey);
  if (!tx)
    throw new TransactionNotFoundError(`No transaction ${key.provider}/${key.account}/${key.reference}`);
  const receipts: ReceiptSummary[] = await deps.store.listReceipts(normalizedKey);
  const history: HistoryEntry[] = [
    {
      at: tx.createdAt,
      type: tx.registered ? 'registered' : 'first-seen',
      detail: tx.registered ? 'registered by the partner' : 'first seen in a callback (orphan)',
    },
    ...receipts.map((r) => ({
      at: r.firstReceivedAt,
      type: 'callback' as const,
      receiptId: r.receiptId,
      route: r.routeName,
      method: r.method,
      deliveries: r.deliveries,
      sourceIp: r.sourceIp,
      lastReceivedAt: r.lastReceivedAt,
      verification: r.verification,
    })),
    ...tx.transitions.map((t) => ({
      at: t.at,
      type: 'transition' as const,
      from: t.from,
      to: t.to,
      origin: t.origin,
      receiptId: t.receiptId ?? null,
    })),
    ...tx.conflicts.map((c) => ({
      at: c.at,
      type: 'conflict' as const,
      kind: c.kind,
      reportedStatus: c.reportedStatus,
      detail: c.detail,
      origin: c.origin,
      receiptId: c.receiptId ?? null,
    })),
    ...tx.events.map((e) => ({ at: e.at, type: 'event' as const, eventId: e.id, eventType: e.type })),
  ];
  // The registration (or first sighting) opens the history even when a callback's receivedAt precedes
  // the moment the item was written.
  const [opening, ...rest] = history;
  rest.sort((a, b) => a.at.localeCompare(b.at));
  history.splice(0, history.length, opening!, ...rest);
  return { transaction: toView(tx), history };
}
