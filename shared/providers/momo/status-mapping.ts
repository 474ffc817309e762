/**
 * MoMo status GET answers in relay vocabulary (pure). The 200 body has the callback's shape, so the draft
 * comes from the callback normalizer (amount, currency, party, financialTransactionId, reason mapping).
 */
import { clip, isRecord, type StatusError, statusError, textOf } from '../outbound-http/types';
import type { StatusAnswer } from '../types';
import { canonicalMomoCode, MOMO_STATUS_TABLE } from './mapping';
import { normalizeMomoCallback } from './normalize';
import { type MomoKind, momoCallbackSchema } from './schema';

export type MomoProduct = 'collection' | 'disbursement' | 'remittance';

/**
 * Status GET per kind (MoMo Open API docs, status GETs; transfer and deposit as MTN's Disbursement API and
 * the simulator serve them). Refund and cash transfer have no default path here: they are
 * checked only with `api.paths`. Request to withdraw uses the v1_0 read, which serves v1 and v2 requests.
 */
export const MOMO_STATUS_PATHS: Readonly<
  Record<MomoKind, { product: MomoProduct; path: string | undefined }>
> = {
  requesttopay: { product: 'collection', path: '/collection/v1_0/requesttopay/{ref}' },
  requesttowithdraw: { product: 'collection', path: '/collection/v1_0/requesttowithdraw/{ref}' },
  invoice: { product: 'collection', path: '/collection/v2_0/invoice/{ref}' },
  payment: { product: 'collection', path: '/collection/v2_0/payment/{ref}' },
  preapproval: { product: 'collection', path: '/collection/v2_0/preapproval/{ref}' },
  transfer: { product: 'disbursement', path: '/disbursement/v1_0/transfer/{ref}' },
  deposit: { product: 'disbursement', path: '/disbursement/v1_0/deposit/{ref}' },
  // The MoMo Open API documentation gives refund and cash transfer no path. Refund: MTN's Disbursement path (the simulator's too).
  // Cash transfer: MTN's deployments place it under Disbursement or Remittance, and a GET at the wrong one
  // answers RESOURCE_NOT_FOUND, which would fail a cash transfer that succeeded: checked only when
  // `api.paths.cashtransfer` says where.
  refund: { product: 'disbursement', path: '/disbursement/v1_0/refund/{ref}' },
  cashtransfer: { product: 'disbursement', path: undefined },
};

/** The product (token and subscription key) of a configured path: the path's first segment decides. */
export function productOfPath(path: string, fallback: MomoProduct): MomoProduct {
  if (path.startsWith('/collection/')) return 'collection';
  if (path.startsWith('/disbursement/')) return 'disbursement';
  if (path.startsWith('/remittance/')) return 'remittance';
  return fallback;
}

/** Error codes of a 5xx that are not transient: the account's configuration is wrong (MoMo Open API docs, error codes). */
export const MOMO_ACCOUNT_ERRORS: ReadonlySet<string> = new Set([
  'NOT_ALLOWED',
  'NOT_ALLOWED_TARGET_ENVIRONMENT',
]);

/** The ErrorReason code of an error body, canonical (`RESOURCE NOT FOUND` → RESOURCE_NOT_FOUND). */
export function momoErrorCode(json: unknown): string | undefined {
  if (!isRecord(json)) return undefined;
  const code = textOf(json.code) ?? textOf(json.error);
  return code ? canonicalMomoCode(code) : undefined;
}

/** The documented 404 code: the reference was never accepted (not a wrong path, which the gateway words differently). */
const NOT_FOUND_CODES = new Set(['RESOURCE_NOT_FOUND', 'TRANSACTION_NOT_FOUND', 'NOT_FOUND']);

export interface MomoStatusInput {
  accountId: string;
  kind: string;
  reference: string;
  httpStatus: number;
  json: unknown;
  garbage: boolean;
}

/**
 * One status GET answer, classified:
 * - 200 SUCCESSFUL (and the tolerated aliases SUCCESS, APPROVED) → SUCCEEDED draft;
 * - 200 FAILED (and REJECTED, EXPIRED, TIMEOUT, CANCELLED, TRANSACTION_CANCELED) → FAILED draft, reason
 *   from mapping.ts (an unknown reason code is UNKNOWN, the status itself is the final code; a refund's
 *   NOT_FOUND / TRANSACTION_NOT_FOUND is ORIGINAL_NOT_FOUND: the refund was accepted, its original is unknown);
 * - 200 PENDING, CREATED, ONGOING or any status not in the table → `pending` (never FAILED);
 * - 404 with RESOURCE_NOT_FOUND → `not-found` (the request was never accepted); another 404 → `rejected`;
 * - 400 → `rejected`; 403 and 5xx NOT_ALLOWED / NOT_ALLOWED_TARGET_ENVIRONMENT → `credentials`;
 * - other 5xx → `unavailable`; a body that is not JSON or has no status → `garbage`.
 */
/**
 * MoMo's status endpoint failing with a 5xx (after the call's retries) says the outcome is unclear (the
 * contract's TransactionAmbiguous): the request may or may not have gone through.
 */
export function unclearWhenServerError(error: StatusError): StatusError {
  return error.httpStatus !== undefined && error.httpStatus >= 500 ? { ...error, unclear: true } : error;
}

export function classifyMomoStatus(input: MomoStatusInput): StatusAnswer {
  const { httpStatus, json } = input;
  const what = `MoMo ${input.kind} status`;
  if (httpStatus === 200) {
    if (input.garbage) return statusError('garbage', `${what}: the answer is not JSON`, { httpStatus });
    const parsed = momoCallbackSchema.safeParse(json);
    if (!parsed.success) return statusError('garbage', `${what}: the answer has no status`, { httpStatus });
    const code = canonicalMomoCode(parsed.data.status);
    const mapped = MOMO_STATUS_TABLE[code];
    if (mapped !== 'SUCCEEDED' && mapped !== 'FAILED') {
      return {
        type: 'pending',
        providerCode: code,
        detail: mapped
          ? `${what}: ${code}`
          : `${what}: unknown status "${clip(parsed.data.status, 40)}", treated as still pending`,
      };
    }
    const draft = normalizeMomoCallback(input.accountId, input.kind, input.reference, parsed.data);
    const reason = draft.reason?.providerCode;
    return {
      type: 'report',
      draft,
      providerCode: reason ? `${code}:${reason}` : code,
      detail: `${what}: ${code}${reason ? ` (${clip(reason, 60)})` : ''}`,
    };
  }
  const code = momoErrorCode(json);
  const named = code ? ` ${clip(code, 60)}` : '';
  if (httpStatus === 404) {
    if (code && NOT_FOUND_CODES.has(code))
      return { type: 'not-found', providerCode: code, detail: `${what}: HTTP 404${named}: never accepted` };
    return statusError(
      'rejected',
      `${what}: HTTP 404${named} (not the documented RESOURCE_NOT_FOUND: check baseUrl)`,
      {
        httpStatus,
      },
    );
  }
  if (httpStatus === 403 || (code && MOMO_ACCOUNT_ERRORS.has(code)))
    return statusError('credentials', `${what}: HTTP ${httpStatus}${named}`, { httpStatus });
  if (httpStatus === 429) return statusError('throttled', `${what}: HTTP 429${named}`, { httpStatus });
  if (httpStatus >= 500)
    return unclearWhenServerError(
      statusError('unavailable', `${what}: HTTP ${httpStatus}${named}`, { httpStatus }),
    );
  return statusError('rejected', `${what}: HTTP ${httpStatus}${named}`, { httpStatus });
}
