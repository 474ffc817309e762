import { SchemaValidationError } from '../../domain/errors';
import type { Money, TransactionKey } from '../../domain/transaction';
import type { C2BRules, C2BValidationInput } from './c2b-validation';
import type { DarajaC2bSettings } from './schema';

/** What a C2B validation request asks (c2b-decision.ts turns it into the app's DeadlineQuestion). */
export interface C2BValidationQuestion {
  /** The C2B transaction: reference = TransID. */
  key: TransactionKey;
  input: C2BValidationInput;
  rules: C2BRules;
  deadlineMs: number;
  partner: DarajaC2bSettings['partner'];
  knownAccounts: boolean;
  /** The body forwarded to the partner's decision endpoint (secrets redacted). */
  payload: Record<string, unknown>;
  amount: Money | undefined;
  billRefNumber: string | undefined;
  /** Masked as it arrived (or masked by the relay). */
  msisdn: string | undefined;
}

/** The decision handler C2B validation questions name (ProviderModule.decisions, the route's `asks`). */
export const C2B_VALIDATION_USE_CASE = 'c2b-validation';

/** Provider-record namespaces of the C2B engine (see docs/table-design.md). */
export const C2B_VALIDATION_NAMESPACE = 'c2b-validation';
export const C2B_KNOWN_ACCOUNT_NAMESPACE = 'c2b-account';

/** Daraja API docs: `BillRefNumber` is "up to 20 alphanumeric characters" (pay-bill only). */
export const BILL_REF_MAX_LENGTH = 20;

/**
 * Why a BillRefNumber the partner gives the relay can never arrive from Daraja, or undefined. Daraja's
 * own requests are not refused for it (the relay is tolerant at the edge); a partner's value is.
 */
export function billRefProblem(billRef: string): string | undefined {
  const trimmed = billRef.trim();
  if (!trimmed) return 'BillRefNumber is empty';
  if (trimmed.length > BILL_REF_MAX_LENGTH)
    return `BillRefNumber "${trimmed.slice(0, 40)}${trimmed.length > 40 ? '…' : ''}" is ${trimmed.length} characters: Daraja carries at most ${BILL_REF_MAX_LENGTH} (Daraja API docs), so no customer can pay to it`;
  return undefined;
}

/**
 * A known C2B account number, as loaded by the partner (operators' loaders and tests): stored through
 * the provider-record port under `c2b-account/<canonical BillRefNumber>`. A number Daraja could never
 * send (over 20 characters, or empty) is refused with SchemaValidationError instead of being stored.
 */
export function knownAccountRecord(input: {
  account: string;
  billRef: string;
  active: boolean;
  label?: string;
  now?: string;
}) {
  const problem = billRefProblem(input.billRef);
  if (problem) throw new SchemaValidationError(`Known account number refused: ${problem}`);
  return {
    provider: 'daraja',
    account: input.account,
    namespace: C2B_KNOWN_ACCOUNT_NAMESPACE,
    id: input.billRef.trim().toUpperCase(),
    data: { active: input.active, ...(input.label ? { label: input.label } : {}) },
    createdAt: input.now ?? new Date().toISOString(),
  };
}
