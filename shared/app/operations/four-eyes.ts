import { compareAmounts } from '../../util/money';
import type { TransactionKey, TransactionRecord } from '../../domain/transaction';
import type { ReconcileServices } from '../reconciliation/reconcile';

/**
 * The four-eyes limit (docs/roles-and-audit.md#four-eyes): what one person may settle alone, checked by
 * every manual path that settles money (a resolution, an accepted quarantined callback), on the record the
 * write reads, so a registration or a report landing between a check and the write cannot slip under it.
 */

/** The limit an operator resolves up to alone on this account ("provider/account", else "*"), if any. */
function resolveLimitFor(
  limits: Readonly<Record<string, string>>,
  key: Pick<TransactionKey, 'provider' | 'account'>,
): string | undefined {
  return limits[`${key.provider}/${key.account}`] ?? limits['*'];
}

/**
 * What one person's word puts at stake: the largest of the amount they state, the amounts the relay holds
 * (registered, reported) and the amounts its evidence claims. Their own figure alone would let them name
 * "1" to settle a registered 100,000 alone (a FAILED resolution, or an accepted callback, carries no amount
 * check of its own); null (unknown, so above any limit) when none is known.
 */
export function amountAtStake(
  stated: string | undefined | null,
  held: Pick<TransactionRecord, 'amount' | 'registeredAmount' | 'evidence'> | undefined,
): string | null {
  const known = [stated, held?.amount?.value, held?.registeredAmount?.value, ...claimedAmounts(held)].filter(
    (a): a is string => typeof a === 'string' && a !== '',
  );
  return known.reduce<string | null>(
    (max, a) => (max === null || compareAmounts(a, max) > 0 ? a : max),
    null,
  );
}

/**
 * The amounts the transaction's evidence claims, whoever claimed them: an unconfirmed callback's figure is
 * no proof of what was paid, but it is what a person's word may settle.
 */
function claimedAmounts(tx: Pick<TransactionRecord, 'evidence'> | undefined): string[] {
  return (tx?.evidence ?? []).flatMap((e) => (e.amount?.value ? [e.amount.value] : []));
}

/**
 * Thrown inside a write that one person makes alone when the record it reads puts more at stake than the
 * limit (it changed since the first look): the caller turns the request into an approval.
 */
export class AboveLimitError extends Error {
  constructor(
    readonly amount: string | null,
    readonly limit: string,
  ) {
    super(`${amount ?? 'an unknown amount'} is above the limit ${limit}`);
    this.name = 'AboveLimitError';
  }
}

/** Throws AboveLimitError when `current` (as the write reads it) puts more than the limit at stake. */
export function checkAloneWithinLimit(
  services: Pick<ReconcileServices, 'config'>,
  current: TransactionRecord,
  stated: string | undefined,
): void {
  const amount = amountAtStake(stated, current);
  const limit = limitExceeded(services, current.key, amount);
  if (limit !== undefined) throw new AboveLimitError(amount, limit);
}

/**
 * The account's four-eyes limit when `amount` is above it (an unknown amount counts as above), else
 * undefined: one person may act alone (docs/roles-and-audit.md#four-eyes).
 */
export function limitExceeded(
  services: Pick<ReconcileServices, 'config'>,
  key: Pick<TransactionKey, 'provider' | 'account'>,
  amount: string | null,
): string | undefined {
  const limit = resolveLimitFor(services.config.management.resolveLimits ?? {}, key);
  if (limit === undefined || (amount !== null && compareAmounts(amount, limit) <= 0)) return undefined;
  return limit;
}
