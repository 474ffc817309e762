import { hasControlCharacters, idProblem, MAX_ID_LENGTH } from '../../util/text';
import * as z from '../../util/zod';
import { SchemaValidationError, TransactionNotFoundError, TransactionStateError } from '../../domain/errors';
import { REASON_CODES } from '../../domain/reasons';
import type { NormalizedReport, TransactionKey, TransactionRecord } from '../../domain/transaction';
import { type Actor, actorRef } from '../../domain/actor';
import { findRegistrationRules } from '../../providers/registration-registry';
import { maskMsisdnsIn } from '../../util/mask';
import { scrubThenTruncate } from '../../util/redact';
import { checkTransaction, type ReconcileServices } from '../reconciliation/reconcile';
import {
  amountSchema,
  configuredCurrency,
  currencySchema,
  type TransactionView,
  toView,
} from './register-transaction';
import { decideReport, decisionContext } from './decide-report';
import { writeWithRetry } from './write-with-retry';
import { checkAloneWithinLimit } from '../operations/four-eyes';

function normalized(key: TransactionKey): TransactionKey {
  const reference = findRegistrationRules(key.provider)?.normalizeReference?.(key.reference) ?? key.reference;
  return { ...key, reference };
}

/**
 * An operator's "check now": one status call outside the schedule, through the same path as the
 * poller (the answer is ingested with origin poll), naming the operator who asked. Allowed in any status: a final transaction's check
 * only records the answer (and a disagreement as a conflict).
 */
export async function forceCheck(
  services: ReconcileServices,
  key: TransactionKey,
  by: Actor,
): Promise<{
  answer: { type: string; detail: string; request: string | null };
  events: string[];
  transaction: TransactionView;
}> {
  const tx = await services.store.getTransaction(normalized(key), { consistent: true });
  if (!tx)
    throw new TransactionNotFoundError(`No transaction ${key.provider}/${key.account}/${key.reference}`);
  // The person who asked is named on the check in the history, on the evidence and on every event.
  const result = await checkTransaction(services, tx, { requestedBy: actorRef(by) });
  services.metrics.flush();
  const { type } = result.answer;
  return {
    answer: {
      type: type === 'error' ? `error:${result.answer.error}` : type,
      detail: result.answer.detail,
      request: result.answer.request ?? null,
    },
    events: result.events.map((e) => e.metadata.type),
    transaction: toView(result.transaction),
  };
}

const MAX_NOTE = 500;

const resolutionSchema = z.strictObject({
  status: z.enum(['SUCCEEDED', 'FAILED']),
  /** Why the operator decided so (a support ticket, the provider's statement): kept in the history. */
  note: z.string().check(
    z.trim(),
    z.minLength(3),
    z.maxLength(MAX_NOTE),
    z.refine((note) => !hasControlCharacters(note), 'note must not contain control characters'),
  ),
  reasonCode: z.optional(z.enum(REASON_CODES)),
  amount: z.optional(amountSchema),
  /** Only needed when the relay holds no amount and the account names no currency. */
  currency: z.optional(currencySchema),
  // The same rule as every id a callback or a registration carries (util/text.ts idProblem).
  providerTransactionId: z.optional(
    z.string().check(
      z.refine((id) => idProblem('providerTransactionId', id) === undefined, {
        message: `providerTransactionId must be 1 to ${MAX_ID_LENGTH} characters, without control characters`,
      }),
    ),
  ),
});

export type Resolution = z.infer<typeof resolutionSchema>;

export function parseResolution(input: unknown): Resolution {
  const parsed = resolutionSchema.safeParse(input);
  if (!parsed.success)
    throw new SchemaValidationError('Invalid resolution', {
      details: { issues: z.treeifyError(parsed.error) },
    });
  // A reason is a failure's (docs/events.md): one given with a success would be dropped unsaid.
  if (parsed.data.reasonCode !== undefined && parsed.data.status !== 'FAILED')
    throw new SchemaValidationError('reasonCode is for a FAILED resolution only', {
      details: { parameter: 'reasonCode' },
    });
  return parsed.data;
}

/** Only an EXPIRED or AMBIGUOUS transaction may be resolved by hand. */
export function checkResolvable(
  current: TransactionRecord | undefined,
  key: TransactionKey,
): TransactionRecord {
  if (!current)
    throw new TransactionNotFoundError(`No transaction ${key.provider}/${key.account}/${key.reference}`);
  if (current.status !== 'EXPIRED' && current.status !== 'AMBIGUOUS')
    throw new TransactionStateError(
      `Only an EXPIRED or AMBIGUOUS transaction can be resolved by hand; this one is ${current.status}`,
    );
  return current;
}

/**
 * The amount a resolution reports, `{value, currency}`: the one it states, in the currency it states, else
 * the held amount's, else the account's. A success must carry what was paid (TransactionSucceeded's
 * `amount`): when the relay holds no amount (an unregistered payment known only from a callback nobody
 * authenticated, whose figure is that sender's word) the person resolving it states it, or the request is
 * refused before anything is stored or asked for approval.
 */
export function resolvedAmount(
  config: ReconcileServices['config'],
  current: TransactionRecord,
  r: Resolution,
): NormalizedReport['amount'] {
  const currency = resolutionCurrency(config, current, r);
  if (r.status === 'SUCCEEDED' && !current.amount?.value && !r.amount)
    throw new SchemaValidationError(
      `amount is required to resolve ${current.key.reference} as SUCCEEDED: the relay holds no confirmed amount for it${unconfirmedAmounts(current)}; state what the provider's records show`,
      { details: { parameter: 'amount' } },
    );
  if (r.amount && !currency)
    throw new SchemaValidationError(
      `currency is required with amount: neither the transaction, its account (${current.key.provider}/${current.key.account}) nor its evidence names one`,
      { details: { parameter: 'currency' } },
    );
  return r.amount ? { value: r.amount, currency } : undefined;
}

/**
 * The currency a resolution is in: the one it states, else the transaction's, its account's, or the one
 * its evidence names. An approval request shows the same one its resolution will apply with.
 */
export function resolutionCurrency(
  config: ReconcileServices['config'],
  current: TransactionRecord,
  r: Pick<Resolution, 'currency'>,
): string | undefined {
  return (
    r.currency ??
    current.amount?.currency ??
    configuredCurrency(config, current.key) ??
    claimedCurrency(current)
  );
}

/** The one currency the evidence names, if it names exactly one (an account moves one currency). */
function claimedCurrency(current: TransactionRecord): string | undefined {
  const named = new Set(
    (current.evidence ?? []).flatMap((e) => (e.amount?.currency ? [e.amount.currency] : [])),
  );
  return named.size === 1 ? [...named][0] : undefined;
}

/** The amounts unconfirmed evidence claims (what a person checks against the provider), in words. */
function unconfirmedAmounts(current: TransactionRecord): string {
  const claimed = [
    ...new Set(
      (current.evidence ?? [])
        .map((e) => e.amount)
        .filter((a): a is NonNullable<typeof a> => Boolean(a?.value))
        .map((a) => `${a.value} ${a.currency ?? ''}`.trim()),
    ),
  ];
  return claimed.length ? ` (unconfirmed evidence claims ${claimed.join(', ')})` : '';
}

/** The transaction's key as stored (the provider's reference rules applied). */
export const storedKey = normalized;

/**
 * Resolves an EXPIRED (or AMBIGUOUS) transaction by hand: a report with origin `manual` through the
 * same decision as every other report, so it is recorded in the history and published once. SUCCEEDED
 * and FAILED never change, by hand either.
 */
export async function resolveByHand(
  services: ReconcileServices,
  key: TransactionKey,
  input: unknown,
  by: {
    actor: Actor;
    approvedBy?: Actor;
    /** One person alone: above the four-eyes limit on the record the write reads, AboveLimitError. */
    alone?: boolean;
  },
): Promise<{ events: string[]; transaction: TransactionView }> {
  const r = parseResolution(input);
  // What reaches the transaction, its history and the event: configured secrets scrubbed (scrubbed
  // before any cut, so no part of one is kept) and phone numbers masked.
  const note = scrubThenTruncate(maskMsisdnsIn(services.scrub(r.note)), MAX_NOTE, (text) => text);
  const now = services.clock.now().toISOString();
  const txKey = normalized(key);
  const written = await writeWithRetry(
    services.store,
    txKey,
    (stored) => {
      const current = checkResolvable(stored, key);
      if (by.alone) checkAloneWithinLimit(services, current, r.amount);
      const report: NormalizedReport = {
        key: txKey,
        kind: current.kind,
        status: r.status,
        // A reason is a failure's (docs/events.md): a success resolved by hand says why in its evidence
        // and its event's resolvedByHand, not as a reason UNKNOWN.
        reason:
          r.status === 'FAILED'
            ? {
                code: r.reasonCode ?? 'UNKNOWN',
                message: `resolved by hand: ${note}`,
                providerCode: undefined,
              }
            : undefined,
        said: { providerCode: undefined, description: `resolved by hand: ${note}` },
        providerTransactionId: r.providerTransactionId,
        externalId: undefined,
        amount: resolvedAmount(services.config, current, r),
        party: undefined,
        receivedAt: now,
        origin: 'manual',
        receiptId: undefined,
        attributes: undefined,
        // An operator's word is authenticated (IAM, Cognito, a named token) and final; it names them.
        authenticated: true,
        actor: actorRef(by.actor),
        ...(by.approvedBy ? { approvedBy: actorRef(by.approvedBy) } : {}),
        eventDetail: {
          resolvedByHand: {
            note,
            by: actorRef(by.actor),
            ...(by.approvedBy ? { approvedBy: actorRef(by.approvedBy) } : {}),
          },
        },
      };
      const outcome = decideReport(
        current,
        report,
        decisionContext(services.config.reconciliation, current, now),
      );
      if (outcome.kind !== 'write' || outcome.effect !== 'advanced')
        throw new TransactionStateError(
          outcome.kind === 'write'
            ? `The resolution disagrees with the transaction (${outcome.events.map((e) => e.metadata.type).join(', ')}); nothing changed`
            : 'The resolution changes nothing',
        );
      return { next: outcome.next, result: outcome };
    },
    { what: `resolve ${txKey.reference} by hand` },
  );
  services.log.info('transaction resolved by hand', {
    ...txKey,
    status: r.status,
    by: by.actor.id,
    ...(by.approvedBy ? { approvedBy: by.approvedBy.id } : {}),
  });
  return {
    events: written.kind === 'write' ? written.events.map((e) => e.metadata.type) : [],
    transaction: toView(written.kind === 'write' ? written.next : (undefined as never)),
  };
}
