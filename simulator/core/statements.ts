/**
 * Downloadable statements of the books (issue 29), in the layouts the real portals export:
 *
 * - `mpesa-merchant`: the M-Pesa org portal's current per-store export, `Mpesa_<shortcode>_<yyyyMMddHHmmss>.csv`,
 *   charges as rows of their own linked to their payment (LINKED_TRANSACTION_ID).
 * - `mpesa-paybill`: the older paybill statement (`Receipt No.`, `Completion Time`, `Paid In`, `Withdrawn`…).
 * - `momo`, `airtel`: partner-portal-like CSVs (their real columns are not public), read by the relay
 *   through a declarative column template; their columns are listed in simulator/README.md.
 *
 * Rows are the books as SERVED (faults applied: missing, duplicated, late, fee rows). Times are local
 * to the provider (PROVIDER_UTC_OFFSET_MINUTES), as the portals print them; numbers are masked.
 */
import { type BookEntry, type Books, localTime, maskNumber, PROVIDER_UTC_OFFSET_MINUTES } from './books';
import type { ProviderName } from './http';

export const STATEMENT_LAYOUTS = {
  daraja: ['mpesa-merchant', 'mpesa-paybill'],
  momo: ['momo'],
  airtel: ['airtel'],
} as const satisfies Record<ProviderName, readonly string[]>;

export const MPESA_MERCHANT_HEADER = [
  'STORE_NAME',
  'RECEIPT_NUMBER',
  'ACCOUNT_TYPE_NAME',
  'TRANSACTION_TYPE',
  'START_TIMESTAMP',
  'TRANSACTION_PARTY_DETAILS',
  'CREDIT_AMOUNT',
  'DEBIT_AMOUNT',
  'BALANCE',
  'LINKED_TRANSACTION_ID',
];
export const MPESA_PAYBILL_HEADER = [
  'Receipt No.',
  'Completion Time',
  'Details',
  'Transaction Status',
  'Paid In',
  'Withdrawn',
  'Balance',
  'Balance Confirmed',
  'Transaction Type',
  'Other Party Info',
  'Transaction Party Details',
];
const MOMO_STATEMENT_HEADER = [
  'Id',
  'External Transaction Id',
  'Date',
  'Status',
  'Type',
  'From',
  'To',
  'Amount',
  'Fee',
  'Currency',
  'Balance',
  'Related Transaction Id',
];
const AIRTEL_STATEMENT_HEADER = [
  'Transaction ID',
  'Partner Transaction ID',
  'Transaction Date',
  'Transaction Type',
  'Transaction Status',
  'MSISDN',
  'Credit',
  'Debit',
  'Currency',
  'Balance After',
  'Related Transaction ID',
];

const money = (n: number) => (n ? n.toFixed(2) : '');
const signed = (n: number) => n.toFixed(2);

/** RFC 4180: quote a field with a comma, quote or line break. */
function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
const csvLine = (fields: readonly string[]) => fields.map(csvField).join(',');

function rowsOf(layout: string, rows: BookEntry[], account: string): string[][] {
  const offset = (e: BookEntry) => PROVIDER_UTC_OFFSET_MINUTES[e.provider];
  switch (layout) {
    case 'mpesa-merchant':
      return rows.map((e) => [
        `${account} - Sim Store`,
        e.id,
        'Merchant Account',
        e.kind === 'fee' ? 'Pay merchant Charge' : e.description,
        localTime(e.time, offset(e)),
        `${maskNumber(e.counterparty)} - John Doe`,
        money(e.amountIn),
        money(e.amountOut),
        signed(e.balance),
        e.linkedId ?? '',
      ]);
    case 'mpesa-paybill':
      return rows.map((e) => [
        e.id,
        localTime(e.time, offset(e)),
        e.kind === 'fee'
          ? `Pay Bill Charge for ${e.linkedId ?? ''}`
          : `${e.description} from ${maskNumber(e.counterparty)} - John Doe Acc. ${e.externalId ?? ''}`,
        'Completed',
        money(e.amountIn),
        e.amountOut ? `-${e.amountOut.toFixed(2)}` : '',
        signed(e.balance),
        'Yes',
        e.kind === 'fee' ? 'Charge' : e.kind === 'reversal' ? 'Reversal' : e.description,
        `${maskNumber(e.counterparty)} - John Doe`,
        e.linkedId ?? '',
      ]);
    case 'momo':
      return rows.map((e) => [
        e.id,
        e.externalId ?? '',
        new Date(e.time).toISOString(),
        'SUCCESSFUL',
        e.kind === 'fee'
          ? 'FEE'
          : e.kind === 'payment'
            ? 'DEBIT'
            : e.kind === 'payout'
              ? 'TRANSFER'
              : 'REFUND',
        e.amountIn ? maskNumber(e.counterparty) : account,
        e.amountIn ? account : maskNumber(e.counterparty),
        (e.amountIn || e.amountOut).toFixed(2),
        e.kind === 'fee' ? e.amountOut.toFixed(2) : '0.00',
        e.currency,
        signed(e.balance),
        e.linkedId ?? '',
      ]);
    default:
      return rows.map((e) => [
        e.id,
        e.externalId ?? '',
        // Airtel's portal prints dd/MM/yyyy HH:mm:ss in its own zone (Africa/Kampala here).
        localTime(e.time, offset(e)).replace(/^(\d{4})-(\d{2})-(\d{2})/, '$3/$2/$1'),
        e.kind === 'fee' ? 'Charge' : e.kind === 'reversal' ? 'Refund' : 'Merchant Payment',
        'TS',
        maskNumber(e.counterparty),
        money(e.amountIn),
        money(e.amountOut),
        e.currency,
        signed(e.balance),
        e.linkedId ?? '',
      ]);
  }
}

const HEADERS: Record<string, string[]> = {
  'mpesa-merchant': MPESA_MERCHANT_HEADER,
  'mpesa-paybill': MPESA_PAYBILL_HEADER,
  momo: MOMO_STATEMENT_HEADER,
  airtel: AIRTEL_STATEMENT_HEADER,
};

/** One statement file of a provider account over [from, to) (epoch ms), as the portal would export it. */
export function statementFile(
  books: Books,
  input: {
    provider: ProviderName;
    account: string;
    layout: string;
    from: number;
    to: number;
    subAccount?: string;
    now: number;
  },
): { filename: string; text: string } {
  const rows = books
    .served(input.provider, input.account, input.subAccount)
    .filter((e) => e.time >= input.from && e.time < input.to);
  const header = HEADERS[input.layout]!;
  const stamp = localTime(input.now, PROVIDER_UTC_OFFSET_MINUTES[input.provider]).replace(/\D/g, '');
  const filename =
    input.provider === 'daraja'
      ? `Mpesa_${input.account}_${stamp}.csv`
      : `${input.provider}_${input.account}_${stamp}.csv`;
  const lines = [csvLine(header), ...rowsOf(input.layout, rows, input.account).map(csvLine)];
  return { filename, text: `${lines.join('\r\n')}\r\n` };
}
