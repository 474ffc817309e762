/**
 * Airtel transaction enquiry answers (`GET /standard/v1/payments/{id}`) in relay vocabulary (pure).
 * Airtel Money Open API docs: `data.transaction.status` TS (success), TF (failed), TA (ambiguous), TIP (in
 * progress), TE (expired); TI (initiated) from production answers; `status.response_code` a DP… result code.
 */
import type { ReportDraft } from '../../domain/transaction';
import { clip, isRecord, statusError, textOf } from '../outbound-http/types';
import type { StatusAnswer } from '../types';
import { decideAirtelOutcome, findResultCode } from './mapping';

/** The enquiry's status values and what they are for reconciliation. */
const AIRTEL_ENQUIRY_STATUSES = {
  /** Final: the payment went through. */
  TS: 'final',
  /** Final: failed (reason from the result code or the message). */
  TF: 'final',
  /** Final: expired (Airtel Money Open API docs "TE (expired)"; mapping.ts: FAILED, TIMED_OUT). */
  TE: 'final',
  /** Outcome unclear: the transaction becomes AMBIGUOUS and is checked on. */
  TA: 'ambiguous',
  /** In progress: nothing changes. */
  TIP: 'pending',
  /** Initiated, not settled yet (mapping.ts AIRTEL_STATUS_TABLE): in progress like TIP. */
  TI: 'pending',
} as const;

/** Airtel Money Open API docs: DP00800001025 "Transaction not found". */
const AIRTEL_NOT_FOUND_CODE = 'DP00800001025';

export interface AirtelEnquiryInput {
  accountId: string;
  kind: string;
  reference: string;
  httpStatus: number;
  json: unknown;
  garbage: boolean;
}

function envelope(json: unknown): { responseCode?: string; resultCode?: string; message?: string } {
  const status = isRecord(json) && isRecord(json.status) ? json.status : undefined;
  return {
    responseCode: textOf(status?.response_code),
    resultCode: textOf(status?.result_code),
    message: textOf(status?.message),
  };
}

function transactionOf(json: unknown): Record<string, unknown> | undefined {
  if (!isRecord(json) || !isRecord(json.data) || !isRecord(json.data.transaction)) return undefined;
  return json.data.transaction;
}

/**
 * One enquiry answer, classified. TS/TF/TE are final (SUCCEEDED, FAILED, FAILED TIMED_OUT); TA is an
 * AMBIGUOUS draft; TIP and any unknown status are `pending` (never FAILED). 404 (or any answer) naming
 * DP00800001025 is `not-found`; a 404 without it is `rejected` (a wrong path must not fail payments).
 */
export function classifyAirtelEnquiry(input: AirtelEnquiryInput): StatusAnswer {
  const { httpStatus, json } = input;
  const what = `Airtel ${input.kind} enquiry`;
  const env = envelope(json);
  const resultCode = findResultCode(env.responseCode) ?? findResultCode(env.message);
  const notFound = resultCode === AIRTEL_NOT_FOUND_CODE;
  if (httpStatus === 200 && !input.garbage) {
    const tx = transactionOf(json);
    const status = textOf(tx?.status)?.toUpperCase();
    if (!tx || !status) {
      if (notFound)
        return { type: 'not-found', providerCode: resultCode, detail: `${what}: transaction not found` };
      return statusError('garbage', `${what}: the answer has no data.transaction.status`, { httpStatus });
    }
    const role = AIRTEL_ENQUIRY_STATUSES[status as keyof typeof AIRTEL_ENQUIRY_STATUSES];
    const message = textOf(tx.message);
    const providerCode = resultCode ? `${status}:${resultCode}` : status;
    if (!role || role === 'pending') {
      return {
        type: 'pending',
        providerCode,
        detail: role
          ? `${what}: ${status} (in progress)`
          : `${what}: unknown status "${clip(status, 20)}", treated as still pending`,
      };
    }
    const outcome = decideAirtelOutcome({ statusCode: status, resultCodes: [env.responseCode], message });
    const draft: ReportDraft = {
      key: { provider: 'airtel', account: input.accountId, reference: input.reference },
      kind: input.kind,
      status: outcome.status,
      reason: outcome.reason
        ? { code: outcome.reason, message, providerCode: outcome.resultCode ?? status }
        : undefined,
      providerTransactionId: textOf(tx.airtel_money_id) ?? textOf(tx.wallet_money_id),
      externalId: undefined,
      amount: undefined,
      party: undefined,
      attributes: {
        airtelStatusCode: status,
        ...(outcome.resultCode ? { airtelResultCode: outcome.resultCode } : {}),
      },
    };
    return {
      type: 'report',
      draft,
      providerCode,
      detail: `${what}: ${status}${outcome.reason ? ` (${outcome.reason})` : ''}${message ? `: ${clip(message, 80)}` : ''}`,
    };
  }
  if (input.garbage)
    return statusError('garbage', `${what}: HTTP ${httpStatus}, the answer is not JSON`, { httpStatus });
  const named = resultCode ? ` ${resultCode}` : env.responseCode ? ` ${clip(env.responseCode, 30)}` : '';
  if (notFound)
    return {
      type: 'not-found',
      providerCode: resultCode,
      detail: `${what}: HTTP ${httpStatus}${named}: transaction not found`,
    };
  if (httpStatus === 404)
    return statusError('rejected', `${what}: HTTP 404 without ${AIRTEL_NOT_FOUND_CODE} (check baseUrl)`, {
      httpStatus,
    });
  if (httpStatus === 403) return statusError('credentials', `${what}: HTTP 403${named}`, { httpStatus });
  if (httpStatus === 429) return statusError('throttled', `${what}: HTTP 429${named}`, { httpStatus });
  if (httpStatus >= 500)
    return statusError('unavailable', `${what}: HTTP ${httpStatus}${named}`, { httpStatus });
  return statusError('rejected', `${what}: HTTP ${httpStatus}${named}`, { httpStatus });
}
