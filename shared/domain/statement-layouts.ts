import { sha256Hex } from '../util/ids';
import { idProblem } from '../util/text';
import { maskMsisdnsIn } from '../util/mask';
import { toDecimalString } from '../util/money';
import { instantOf, isTimeZone } from '../util/time-zone';
import { StatementFileError } from './errors';
import { rowClaim } from './statement-match';
import type { StatementRow, StatementRowKind, StatementSource } from './statement';

/**
 * The layouts of statement files (docs/statements.md#files): the two M-Pesa org-portal exports built in,
 * and a declarative column template for any other file. A template names, by header, the column of each
 * field of a StatementRow; the relay never guesses a column.
 */

export const TIME_FORMATS = [
  'YYYY-MM-DD HH:mm:ss',
  'DD-MM-YYYY HH:mm:ss',
  'DD/MM/YYYY HH:mm:ss',
  'MM/DD/YYYY HH:mm:ss',
  'YYYYMMDDHHmmss',
  /** ISO 8601 with its own offset or Z (the time zone is then the file's, not the template's). */
  'ISO',
] as const;
type TimeFormat = (typeof TIME_FORMATS)[number];

export interface ColumnTemplate {
  /** The header of each field's column, as the file spells it (compared trimmed, case-insensitive). */
  columns: {
    providerId: string;
    time: string;
    externalId?: string;
    amountIn?: string;
    amountOut?: string;
    /**
     * One amount column instead of in/out: signed (negative: money out), or, with `direction`, unsigned
     * and the direction column's words decide in or out.
     */
    amount?: string;
    /**
     * The column whose words say whether `amount` came in or went out, for files that write amounts
     * unsigned (MoMo and Airtel partner portals): a sign or direction column (`CR`/`DR`, `+`/`-`), or the
     * status or type column (`Payment received` / `Transfer sent`). Its words are in `directions`.
     */
    direction?: string;
    fee?: string;
    status?: string;
    counterparty?: string;
    /** The column whose words say what a row is (a transaction type, the details). */
    kind?: string;
    linkedProviderId?: string;
    balance?: string;
    currency?: string;
  };
  timeFormat: TimeFormat;
  /** The file's time zone (IANA); default: the account's business time zone. */
  timeZone?: string;
  /** Words in the `kind` column (case-insensitive substrings) that make a row a fee or a reversal, or no payment. */
  kinds?: { fee?: string[]; reversal?: string[]; other?: string[] };
  /**
   * With the `direction` column: its words (case-insensitive; a cell equal to one, else containing one)
   * for money in and money out. A row whose cell says neither, or both, is an error naming its line.
   */
  directions?: { in: string[]; out: string[] };
  currency?: string;
  delimiter?: string;
}

/**
 * The current per-store merchant (till) export, `Mpesa_<shortcode>_<yyyyMMddHHmmss>.csv`. Charges are rows
 * of their own ("Pay merchant Charge") linked by LINKED_TRANSACTION_ID; the daily sweep to the settlement
 * account moves money but is no payment.
 */
const MPESA_MERCHANT: ColumnTemplate = {
  columns: {
    providerId: 'RECEIPT_NUMBER',
    time: 'START_TIMESTAMP',
    kind: 'TRANSACTION_TYPE',
    counterparty: 'TRANSACTION_PARTY_DETAILS',
    amountIn: 'CREDIT_AMOUNT',
    amountOut: 'DEBIT_AMOUNT',
    balance: 'BALANCE',
    linkedProviderId: 'LINKED_TRANSACTION_ID',
  },
  timeFormat: 'YYYY-MM-DD HH:mm:ss',
  kinds: {
    fee: ['charge'],
    reversal: ['reversal'],
    other: ['settlement account', 'transfer to', 'transfer from', 'sweep'],
  },
  currency: 'KES',
};

/**
 * The older paybill statement: `Receipt No., Completion Time, …, Details, Transaction Status, Paid In,
 * Withdrawn, Balance, …`, a few lines of description before the header row, withdrawals written negative.
 */
const MPESA_PAYBILL: ColumnTemplate = {
  columns: {
    providerId: 'Receipt No.',
    time: 'Completion Time',
    kind: 'Details',
    status: 'Transaction Status',
    amountIn: 'Paid In',
    amountOut: 'Withdrawn',
    balance: 'Balance',
    counterparty: 'Other Party Info',
    linkedProviderId: 'Linked Transaction ID',
    externalId: 'A/C No.',
  },
  timeFormat: 'YYYY-MM-DD HH:mm:ss',
  kinds: {
    fee: ['charge'],
    reversal: ['reversal'],
    other: ['settlement account', 'transfer of funds', 'transfer to', 'transfer from'],
  },
  currency: 'KES',
};

/**
 * The same paybill statement as exported without `Linked Transaction ID` and `A/C No.`: `Receipt No., Completion
 * Time, Details, Transaction Status, Paid In, Withdrawn, Balance, Balance Confirmed, Transaction Type, Other Party
 * Info, Transaction Party Details`, a charge's `Transaction Party Details` naming the receipt it belongs to (the
 * layout of the provider notes, and the simulator's `mpesa-paybill` file).
 */
const MPESA_PAYBILL_PARTY: ColumnTemplate = {
  ...MPESA_PAYBILL,
  columns: {
    providerId: 'Receipt No.',
    time: 'Completion Time',
    kind: 'Details',
    status: 'Transaction Status',
    amountIn: 'Paid In',
    amountOut: 'Withdrawn',
    balance: 'Balance',
    counterparty: 'Other Party Info',
    linkedProviderId: 'Transaction Party Details',
  },
};

export const BUILT_IN_LAYOUTS: Readonly<Record<string, ColumnTemplate>> = {
  'mpesa-merchant': MPESA_MERCHANT,
  'mpesa-paybill': MPESA_PAYBILL,
  'mpesa-paybill-party': MPESA_PAYBILL_PARTY,
};

const norm = (header: string) => header.trim().toLowerCase();

/** Lines before the header row a file may carry (the paybill statement's description): bounded. */
export const MAX_PREAMBLE_LINES = 30;

/** Whether a record is the template's header row: every column the template names is there. */
function isHeaderOf(template: ColumnTemplate, fields: readonly string[]): boolean {
  const present = new Set(fields.map(norm));
  return Object.values(template.columns).every((h) => h === undefined || present.has(norm(h)));
}

/**
 * The built-in layout whose header this is, if one: the first whose every column is there (two paybill exports
 * share their required columns), else the first whose required columns are (its reader then names the missing).
 */
export function detectLayout(fields: readonly string[]): string | undefined {
  const present = new Set(fields.map(norm));
  for (const [name, t] of Object.entries(BUILT_IN_LAYOUTS)) if (isHeaderOf(t, fields)) return name;
  for (const [name, t] of Object.entries(BUILT_IN_LAYOUTS))
    if (present.has(norm(t.columns.providerId)) && present.has(norm(t.columns.time))) return name;
  return undefined;
}

export interface RowContext {
  provider: string;
  account: string;
  source: StatementSource;
  /** The file's name (or the pull's window), for each row's origin. */
  ref: string;
  /** The account's business time zone: the file's unless the template names one. */
  timeZone: string;
}

function fail(line: number, column: string | undefined, message: string): never {
  throw new StatementFileError(`Line ${line}${column ? `, column "${column}"` : ''}: ${message}`, {
    details: { line, ...(column ? { column } : {}) },
  });
}

function amountOf(raw: string | undefined, line: number, column: string): string | undefined {
  const text = (raw ?? '')
    .trim()
    .replace(/,/g, '')
    .replace(/^\((.*)\)$/, '-$1');
  if (text === '' || text === '-') return undefined;
  const value = toDecimalString(text);
  if (value === undefined) fail(line, column, `"${text.slice(0, 40)}" is not an amount`);
  return value;
}

const abs = (value: string) => (value.startsWith('-') ? value.slice(1) : value);

const TIME_PATTERNS: Record<Exclude<TimeFormat, 'ISO'>, { re: RegExp; order: string[] }> = {
  'YYYY-MM-DD HH:mm:ss': {
    re: /^(\d{4})-(\d{1,2})-(\d{1,2})[ T](\d{1,2}):(\d{2})(?::(\d{2}))?$/,
    order: ['y', 'M', 'd'],
  },
  'DD-MM-YYYY HH:mm:ss': {
    re: /^(\d{1,2})-(\d{1,2})-(\d{4}) (\d{1,2}):(\d{2})(?::(\d{2}))?$/,
    order: ['d', 'M', 'y'],
  },
  'DD/MM/YYYY HH:mm:ss': {
    re: /^(\d{1,2})\/(\d{1,2})\/(\d{4}) (\d{1,2}):(\d{2})(?::(\d{2}))?$/,
    order: ['d', 'M', 'y'],
  },
  'MM/DD/YYYY HH:mm:ss': {
    re: /^(\d{1,2})\/(\d{1,2})\/(\d{4}) (\d{1,2}):(\d{2})(?::(\d{2}))?$/,
    order: ['M', 'd', 'y'],
  },
  YYYYMMDDHHmmss: { re: /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/, order: ['y', 'M', 'd'] },
};

/** A cell's time as an ISO instant (UTC), read in `format` and `timeZone`. */
function parseTime(raw: string, format: TimeFormat, timeZone: string): string | undefined {
  const text = raw.trim();
  if (format === 'ISO') {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(text)) return undefined;
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
  }
  const pattern = TIME_PATTERNS[format];
  const m = pattern.re.exec(text);
  if (!m) return undefined;
  const [a, b, c, hh, mm, ss] = m.slice(1).map((v) => Number(v ?? 0)) as number[];
  const parts: Record<string, number> = {
    [pattern.order[0]!]: a!,
    [pattern.order[1]!]: b!,
    [pattern.order[2]!]: c!,
  };
  const wall = { year: parts.y!, month: parts.M!, day: parts.d!, hour: hh!, minute: mm!, second: ss! };
  if (
    wall.month < 1 ||
    wall.month > 12 ||
    wall.day < 1 ||
    wall.day > 31 ||
    wall.hour > 23 ||
    wall.minute > 59 ||
    wall.second > 59
  )
    return undefined;
  const check = new Date(Date.UTC(wall.year, wall.month - 1, wall.day));
  if (check.getUTCDate() !== wall.day) return undefined;
  return new Date(instantOf(wall, timeZone)).toISOString();
}

function kindOf(
  template: ColumnTemplate,
  words: string | undefined,
  amountIn: string,
  amountOut: string,
): StatementRowKind {
  const text = (words ?? '').toLowerCase();
  const has = (list: string[] | undefined) => (list ?? []).some((w) => text.includes(w.toLowerCase()));
  if (has(template.kinds?.fee)) return 'fee';
  if (has(template.kinds?.reversal)) return 'reversal';
  if (has(template.kinds?.other)) return 'other';
  return amountIn === '0' && amountOut === '0' ? 'other' : 'payment';
}

/**
 * In or out, by the words of a template's direction column: a cell equal to one of the words (trimmed,
 * case-insensitive) decides; else one containing words of only one side. Neither, or both: an error
 * naming the line and column, never a guess (a wrong sign is money counted the wrong way).
 */
function directionOf(
  template: ColumnTemplate,
  raw: string | undefined,
  line: number,
  column: string,
): 'in' | 'out' {
  const text = (raw ?? '').trim().toLowerCase();
  const words = template.directions ?? { in: [], out: [] };
  const lower = (list: string[]) => list.map((w) => w.trim().toLowerCase()).filter(Boolean);
  const [ins, outs] = [lower(words.in), lower(words.out)];
  if (text && ins.includes(text) !== outs.includes(text)) return ins.includes(text) ? 'in' : 'out';
  const isIn = text !== '' && ins.some((w) => text.includes(w));
  const isOut = text !== '' && outs.some((w) => text.includes(w));
  if (isIn !== isOut) return isIn ? 'in' : 'out';
  return fail(
    line,
    column,
    `"${text.slice(0, 40)}" says ${isIn ? 'both in and out' : 'neither in'} (${words.in.join(', ')}) ${isIn ? 'and' : 'nor'} out (${words.out.join(', ')})`,
  );
}

/** A row's money in and out: in/out columns, one signed amount, or an unsigned one and its direction column. */
function amountsOf(
  t: ColumnTemplate,
  cell: (header: string | undefined) => string | undefined,
  line: number,
): { amountIn: string; amountOut: string } {
  let amountIn = t.columns.amountIn
    ? abs(amountOf(cell(t.columns.amountIn), line, t.columns.amountIn) ?? '0')
    : '0';
  let amountOut = t.columns.amountOut
    ? abs(amountOf(cell(t.columns.amountOut), line, t.columns.amountOut) ?? '0')
    : '0';
  if (t.columns.amount) {
    const signed = amountOf(cell(t.columns.amount), line, t.columns.amount);
    if (signed === undefined) fail(line, t.columns.amount, 'the amount is missing');
    const way = t.columns.direction
      ? directionOf(t, cell(t.columns.direction), line, t.columns.direction)
      : signed.startsWith('-')
        ? 'out'
        : 'in';
    // An unsigned file's direction decides; a minus sign that contradicts it is no guess to make.
    if (way === 'in' && signed.startsWith('-'))
      fail(line, t.columns.amount, `a negative amount on a row whose ${t.columns.direction} says in`);
    if (way === 'out') amountOut = abs(signed);
    else amountIn = signed;
  }
  return { amountIn, amountOut };
}

/**
 * Reads a file's records as a template says. The header row is found within the first lines (a preamble
 * is skipped); every later record becomes one StatementRow or a StatementFileError naming its line and
 * column. Pure per record: the caller streams.
 */
export class TemplateReader {
  private index: Map<string, number> | undefined;
  private preamble = 0;

  constructor(
    private readonly template: ColumnTemplate,
    private readonly ctx: RowContext,
  ) {
    const zone = template.timeZone ?? ctx.timeZone;
    if (!isTimeZone(zone)) fail(0, undefined, `unknown time zone ${zone}`);
  }

  /** Whether the header row was found. */
  get ready(): boolean {
    return this.index !== undefined;
  }

  /** One record: undefined for the preamble, the header row and blank rows; else the row. */
  read(record: { line: number; fields: string[] }): StatementRow | undefined {
    if (!this.index) {
      if (isHeaderOf(this.template, record.fields)) {
        this.index = new Map(record.fields.map((h, i) => [norm(h), i]));
        return undefined;
      }
      if (++this.preamble > MAX_PREAMBLE_LINES)
        fail(
          record.line,
          undefined,
          `no header row with the layout's columns (${Object.values(this.template.columns).join(', ')}) in the first ${MAX_PREAMBLE_LINES} lines`,
        );
      return undefined;
    }
    if (record.fields.every((f) => f.trim() === '')) return undefined;
    const t = this.template;
    const cell = (header: string | undefined) =>
      header === undefined ? undefined : record.fields[this.index!.get(norm(header)) ?? -1];
    if (record.fields.length > this.index.size)
      fail(record.line, undefined, `${record.fields.length} fields; the header has ${this.index.size}`);
    const providerId = (cell(t.columns.providerId) ?? '').trim();
    if (!providerId || idProblem('', providerId) !== undefined)
      fail(record.line, t.columns.providerId, 'the provider id is missing or not printable');
    const zone = t.timeZone ?? this.ctx.timeZone;
    const rawTime = cell(t.columns.time) ?? '';
    const time = parseTime(rawTime, t.timeFormat, zone);
    if (!time)
      fail(
        record.line,
        t.columns.time,
        `"${rawTime.trim().slice(0, 40)}" is not a time in the format ${t.timeFormat}`,
      );
    const { amountIn, amountOut } = amountsOf(t, cell, record.line);
    const fee = t.columns.fee ? amountOf(cell(t.columns.fee), record.line, t.columns.fee) : undefined;
    const balance = t.columns.balance
      ? amountOf(cell(t.columns.balance), record.line, t.columns.balance)
      : undefined;
    const optional = (header: string | undefined) => {
      const v = cell(header)?.trim();
      return v ? v.slice(0, 200) : undefined;
    };
    const status = optional(t.columns.status)?.toUpperCase();
    const counterparty = optional(t.columns.counterparty);
    const externalId = optional(t.columns.externalId);
    const linked = optional(t.columns.linkedProviderId);
    const currency = optional(t.columns.currency) ?? t.currency;
    return {
      provider: this.ctx.provider,
      account: this.ctx.account,
      source: this.ctx.source,
      providerId,
      ...(externalId ? { externalId } : {}),
      time,
      amountIn,
      amountOut,
      ...(fee && fee !== '0' ? { fee: abs(fee) } : {}),
      ...(currency ? { currency } : {}),
      kind: kindOf(t, optional(t.columns.kind), amountIn, amountOut),
      ...(status ? { status } : {}),
      ...(linked && linked !== providerId ? { linkedProviderId: linked } : {}),
      // Masked as every MSISDN the relay shows: a statement names the payer in full.
      ...(counterparty ? { counterparty: maskMsisdnsIn(counterparty) } : {}),
      ...(balance ? { balance } : {}),
      origin: { ref: this.ctx.ref, row: record.line },
    };
  }
}

/**
 * What makes a row the same row: the money it states (id, what it is, amounts, fee, what its status claims). Where it
 * came from, the balance column and the counterparty's spelling are left out: the same payment read from
 * the pull API and from the portal's file is one row, not a change.
 */
export function rowFingerprint(row: StatementRow): string {
  // The status as what it claims (a pull row has no status word; the file's says "Completed": one claim).
  const content = [
    row.providerId,
    row.kind,
    row.amountIn,
    row.amountOut,
    row.fee ?? '0',
    rowClaim(row) ?? row.status ?? '',
  ];
  return sha256Hex(JSON.stringify(content)).slice(0, 32);
}
