import { maskMsisdn } from '../../util/mask';
import { sameAmount } from '../../util/money';
import type { NormalizedReport, TransactionRecord } from '../transaction';

function amountMismatch(tx: TransactionRecord, report: NormalizedReport): string | undefined {
  if (!tx.amount || !report.amount) return undefined;
  if (!sameAmount(tx.amount.value, report.amount.value)) {
    return `amount ${report.amount.value} reported, ${tx.amount.value} registered`;
  }
  if (tx.amount.currency && report.amount.currency && tx.amount.currency !== report.amount.currency) {
    return `currency ${report.amount.currency} reported, ${tx.amount.currency} registered`;
  }
  return undefined;
}

/** Digits in national form ("+254 708 374149", "0708374149" → "708374149"…); undefined when masked or hashed. */
function msisdnDigits(value: string): string | undefined {
  if (/[^\d\s+()-]/.test(value)) return undefined;
  const digits = value.replace(/\D/g, '').replace(/^0+/, '');
  return digits.length >= 6 ? digits : undefined;
}

/** A report naming another payer/payee MSISDN than the registered one (compared on the last 9 digits). */
function msisdnMismatch(tx: TransactionRecord, report: NormalizedReport): string | undefined {
  if (!tx.msisdn || report.party?.idType !== 'MSISDN') return undefined;
  const registered = msisdnDigits(tx.msisdn);
  const reported = msisdnDigits(report.party.id);
  if (!registered || !reported || registered.slice(-9) === reported.slice(-9)) return undefined;
  return `msisdn ${maskMsisdn(reported)} reported, ${maskMsisdn(registered)} registered`;
}

/** The report names another payer/payee MSISDN than the transaction's registered one. */
export const namesAnotherMsisdn = (tx: TransactionRecord, report: NormalizedReport): boolean =>
  msisdnMismatch(tx, report) !== undefined;

export interface BusinessMismatch {
  kind: 'AMOUNT_MISMATCH' | 'MSISDN_MISMATCH';
  detail: string;
}

/**
 * The business check applied wherever a success report meets a transaction (callback, poll, adoption
 * at registration): another amount, currency or payer/payee than the transaction's is never a success.
 */
export function businessMismatch(
  tx: TransactionRecord,
  report: NormalizedReport,
): BusinessMismatch | undefined {
  if (report.status !== 'SUCCEEDED') return undefined;
  const amount = amountMismatch(tx, report);
  if (amount) return { kind: 'AMOUNT_MISMATCH', detail: amount };
  const party = msisdnMismatch(tx, report);
  if (party) return { kind: 'MSISDN_MISMATCH', detail: party };
  return undefined;
}

/**
 * A success that is only a hint: it carries no amount while the transaction was registered with one, or
 * the account confirms unsigned successes with the status API (MoMo by default). Unless the body was
 * authenticated end to end it is recorded as AMBIGUOUS (UNCONFIRMED) and due for a status check at once;
 * the status API's answer (with its amount) settles it. The provider's ack never waits for that.
 */
export function unconfirmedSuccess(
  tx: TransactionRecord,
  report: NormalizedReport,
): NormalizedReport | undefined {
  if (report.status !== 'SUCCEEDED' || report.authenticated) return undefined;
  const missingAmount = !report.amount && tx.amount !== undefined;
  if (!missingAmount && !report.needsConfirmation) return undefined;
  const registered = tx.amount
    ? `${tx.amount.value}${tx.amount.currency ? ` ${tx.amount.currency}` : ''} registered`
    : undefined;
  return {
    ...report,
    status: 'AMBIGUOUS',
    reason: {
      code: 'UNCONFIRMED',
      message: report.statement?.aboveLimit
        ? `a statement file's row above the four-eyes limit ${report.statement.aboveLimit}; awaiting the status API or a resolution a second person approves`
        : missingAmount
          ? `success reported without an amount; ${registered}, awaiting confirmation`
          : 'unsigned success reported; awaiting confirmation by the status API',
      providerCode: report.reason?.providerCode,
    },
  };
}

/** The transaction was AMBIGUOUS because of an unsigned success that is still unconfirmed. */
export function awaitsConfirmation(tx: Pick<TransactionRecord, 'status' | 'reason'>): boolean {
  return tx.status === 'AMBIGUOUS' && tx.reason?.code === 'UNCONFIRMED';
}
