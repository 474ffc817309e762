import { isHashedMsisdn } from '../../util/mask';
import { toDecimalString } from '../../util/money';
import { C2B_REJECT_CODES, type C2BRejectCode, type DarajaC2bSettings } from './schema';

/**
 * The C2B validation engine: decision logic only, no I/O. The slow sources (the known-accounts table,
 * the partner endpoint) are injected functions that take an AbortSignal; this module runs them against
 * a deadline and falls back to the account's default when they are late or fail.
 *
 * Rule order (first rejection wins): short code (C2B00015) → MSISDN prefix (C2B00011) → amount
 * (C2B00013) → BillRefNumber pattern (C2B00012) → customer name / KYC (C2B00014) → known account
 * (C2B00012) → partner endpoint (its code) → accept.
 */

const C2B_CODES = {
  invalidMsisdn: 'C2B00011',
  invalidAccountNumber: 'C2B00012',
  invalidAmount: 'C2B00013',
  invalidKyc: 'C2B00014',
  invalidShortCode: 'C2B00015',
  otherError: 'C2B00016',
} as const satisfies Record<string, C2BRejectCode>;

type C2BRule =
  | 'short-code'
  | 'msisdn-prefix'
  | 'amount'
  | 'bill-ref-pattern'
  | 'customer-name'
  | 'known-account'
  | 'partner-endpoint'
  | 'all-rules-passed'
  | 'default';

export interface C2BDecision {
  decision: 'accept' | 'reject';
  /** "0" for accept, C2B000xx for reject: exactly what Daraja gets back as ResultCode. */
  resultCode: '0' | C2BRejectCode;
  rule: C2BRule;
  detail: string;
}

export interface C2BOutcome extends C2BDecision {
  /** The decision was not ready by the deadline; the account's default answered. */
  deadlineApplied: boolean;
  /** The default answered (deadline, or a decision source failed). */
  defaultApplied: boolean;
  /** Why a source failed, when one did (no secrets, no MSISDNs). */
  sourceError: string | undefined;
  elapsedMs: number;
}

export interface C2BValidationInput {
  transId: string;
  transAmount: string;
  businessShortCode: string;
  billRefNumber: string;
  /** As received: masked like 25470****149, or hashed (64 hex characters, see isHashedMsisdn). */
  msisdn: string;
  firstName: string;
  lastName: string;
  /** Daraja's TransactionType ("Pay Bill", "Buy Goods", …), '' when absent. */
  transactionType?: string;
}

/**
 * A till (Buy Goods) payment has no account number: Daraja sends an empty BillRefNumber. The account
 * number rules apply to pay-bill payments only; refusing a till payment for it would cancel it.
 */
function carriesAccountNumber(input: Pick<C2BValidationInput, 'transactionType'>): boolean {
  return !/buy\s*goods|till/i.test(input.transactionType ?? '');
}

export interface C2BRules extends DarajaC2bSettings {
  /** The account's configured short code; unset skips the short-code rule. */
  shortCode: string | undefined;
}

const accept = (rule: C2BRule, detail: string): C2BDecision => ({
  decision: 'accept',
  resultCode: '0',
  rule,
  detail,
});
const reject = (resultCode: C2BRejectCode, rule: C2BRule, detail: string): C2BDecision => ({
  decision: 'reject',
  resultCode,
  rule,
  detail,
});

/** The visible digits before the mask: "25470****149" → "25470"; an unmasked number is all visible. */
export function visibleMsisdnPrefix(msisdn: string): string {
  return (
    msisdn
      .trim()
      .replace(/^\+/, '')
      .split(/[^0-9]/)[0] ?? ''
  );
}

/** Canonical BillRefNumber for rules and lookups: trimmed, upper case (customers type it by hand). */
export function canonicalBillRef(billRef: string): string {
  return billRef.trim().toUpperCase();
}

/** The rules that need no I/O, in order. Undefined: none of them rejects. */
export function evaluateLocalRules(input: C2BValidationInput, rules: C2BRules): C2BDecision | undefined {
  if (rules.shortCode !== undefined && input.businessShortCode.trim() !== rules.shortCode) {
    return reject(
      C2B_CODES.invalidShortCode,
      'short-code',
      `BusinessShortCode ${input.businessShortCode} is not ${rules.shortCode}`,
    );
  }
  // A hashed MSISDN hides every digit: like a mask longer than the prefix, only Daraja could check it,
  // and refusing it would cancel every payment of an account whose numbers arrive hashed.
  if (rules.msisdnPrefixes && !isHashedMsisdn(input.msisdn)) {
    const visible = visibleMsisdnPrefix(input.msisdn);
    // With a mask, only the visible part can be checked: it must start with a prefix, or be a start of one
    // that is longer than what is visible (then the hidden digits decide, and Daraja knows them, not us).
    const fits = (prefix: string) =>
      visible.startsWith(prefix) ||
      (visible.length > 0 && prefix.startsWith(visible) && input.msisdn.includes('*'));
    if (!rules.msisdnPrefixes.some(fits)) {
      return reject(
        C2B_CODES.invalidMsisdn,
        'msisdn-prefix',
        `MSISDN prefix ${visible || '(none)'} is not allowed`,
      );
    }
  }
  const amount = toDecimalString(input.transAmount);
  const numeric = amount === undefined ? Number.NaN : Number(amount);
  if (!(numeric > 0)) {
    return reject(
      C2B_CODES.invalidAmount,
      'amount',
      `TransAmount "${input.transAmount}" is not a positive amount`,
    );
  }
  if (rules.minAmount !== undefined && numeric < rules.minAmount) {
    return reject(
      C2B_CODES.invalidAmount,
      'amount',
      `amount ${amount} is below the minimum ${rules.minAmount}`,
    );
  }
  if (rules.maxAmount !== undefined && numeric > rules.maxAmount) {
    return reject(
      C2B_CODES.invalidAmount,
      'amount',
      `amount ${amount} is above the maximum ${rules.maxAmount}`,
    );
  }
  if (
    rules.billRefPattern !== undefined &&
    carriesAccountNumber(input) &&
    !new RegExp(`^(?:${rules.billRefPattern})$`).test(input.billRefNumber.trim())
  ) {
    return reject(
      C2B_CODES.invalidAccountNumber,
      'bill-ref-pattern',
      'BillRefNumber does not match the account number pattern',
    );
  }
  if (rules.requireCustomerName && !input.firstName.trim() && !input.lastName.trim()) {
    return reject(C2B_CODES.invalidKyc, 'customer-name', 'the payer name (KYC details) is empty');
  }
  return undefined;
}

/**
 * The partner endpoint's answer: `{"accept": true}` or `{"accept": false, "resultCode": "C2B00012"}`.
 * Daraja's own shape (`{"ResultCode": "0" | "C2B000xx"}`) is understood too, so an existing validation
 * handler can be put behind the relay unchanged. A reject without a valid C2B code is C2B00016.
 */
export function parsePartnerAnswer(body: unknown): C2BDecision | { error: string } {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return { error: 'answer is not a JSON object' };
  const answer = body as Record<string, unknown>;
  let accepted: boolean | undefined;
  let code: unknown;
  if (typeof answer.accept === 'boolean') {
    accepted = answer.accept;
    code = answer.resultCode;
  } else if (answer.ResultCode !== undefined) {
    accepted = String(answer.ResultCode).trim() === '0';
    code = answer.ResultCode;
  }
  if (accepted === undefined) return { error: 'answer has neither "accept" (boolean) nor "ResultCode"' };
  if (accepted) return accept('partner-endpoint', 'the partner endpoint accepted');
  const given = typeof code === 'string' ? code.trim().toUpperCase() : undefined;
  const valid = (C2B_REJECT_CODES as readonly string[]).includes(given ?? '');
  return reject(
    valid ? (given as C2BRejectCode) : C2B_CODES.otherError,
    'partner-endpoint',
    valid
      ? 'the partner endpoint rejected'
      : `the partner endpoint rejected with an invalid code (${String(code)})`,
  );
}

export interface C2BDecisionSources {
  /** True when the BillRefNumber (canonical) is a known, active account number. */
  knownAccount?: (billRef: string, signal: AbortSignal) => Promise<boolean>;
  partner?: (signal: AbortSignal) => Promise<C2BDecision>;
}

export interface DeadlineOptions {
  /** Time the decision may take, from the call. */
  budgetMs: number;
  /** Monotonic milliseconds (performance.now in production; injectable in tests). */
  now?: () => number;
}

function defaultDecision(rules: C2BRules, why: string): C2BDecision {
  return rules.defaultDecision === 'accept'
    ? accept('default', `default decision (accept): ${why}`)
    : reject(rules.defaultRejectCode, 'default', `default decision (reject): ${why}`);
}

type Settled =
  { kind: 'decided'; decision: C2BDecision } | { kind: 'failed'; error: string } | { kind: 'late' };

/**
 * Decides within `budgetMs`: local rules first, then the slow sources under one AbortSignal. When the
 * deadline passes, the signal is aborted, the default answers, and whatever the sources do later is
 * ignored (their rejection is absorbed, never unhandled).
 */
export async function decideC2BValidation(
  input: C2BValidationInput,
  rules: C2BRules,
  sources: C2BDecisionSources,
  options: DeadlineOptions,
): Promise<C2BOutcome> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const finish = (decision: C2BDecision, extra: Partial<C2BOutcome> = {}): C2BOutcome => ({
    ...decision,
    deadlineApplied: false,
    defaultApplied: false,
    sourceError: undefined,
    ...extra,
    elapsedMs: Math.round(now() - started),
  });

  const local = evaluateLocalRules(input, rules);
  if (local) return finish(local);
  if (!sources.knownAccount && !sources.partner)
    return finish(accept('all-rules-passed', 'every configured rule passed'));

  const controller = new AbortController();
  const remote = async (): Promise<C2BDecision> => {
    if (sources.knownAccount && carriesAccountNumber(input)) {
      const billRef = canonicalBillRef(input.billRefNumber);
      if (!billRef || !(await sources.knownAccount(billRef, controller.signal))) {
        return reject(
          C2B_CODES.invalidAccountNumber,
          'known-account',
          'BillRefNumber is not a known, active account number',
        );
      }
    }
    if (sources.partner) return sources.partner(controller.signal);
    return accept('all-rules-passed', 'every configured rule passed');
  };
  const work: Promise<Settled> = remote().then(
    (decision) => ({ kind: 'decided', decision }),
    (error: unknown) => ({ kind: 'failed', error: error instanceof Error ? error.message : String(error) }),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<Settled>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'late' }), Math.max(0, options.budgetMs));
  });
  const settled = await Promise.race([work, deadline]);
  clearTimeout(timer);
  if (settled.kind === 'decided') return finish(settled.decision);
  controller.abort();
  if (settled.kind === 'late') {
    return finish(defaultDecision(rules, `no decision within ${options.budgetMs} ms`), {
      deadlineApplied: true,
      defaultApplied: true,
    });
  }
  return finish(defaultDecision(rules, `a decision source failed: ${settled.error}`), {
    defaultApplied: true,
    sourceError: settled.error,
  });
}
