import type { ReportDraft } from '../../domain/transaction';
import type { Reason } from '../../domain/reasons';
import type { Party } from '../../domain/transaction';
import { toDecimalString } from '../../util/money';
import { canonicalMomoCode, MOMO_STATUS_IMPLIED_REASON, mapMomoReason, mapMomoStatus } from './mapping';
import type { MomoCallback } from './schema';

function reasonOf(body: MomoCallback, kind: string): Reason | undefined {
  // Only a failure has a failure reason: not a PENDING report (PAYER_DELAYED, ONGOING…), not a success.
  const mapped = mapMomoStatus(body.status);
  if (mapped === 'PENDING' || mapped === 'SUCCEEDED') return undefined;
  // A cash transfer or remittance may send `reason: ""` beside the `errorReason` that says why.
  const raw = body.reason || body.errorReason;
  const status = canonicalMomoCode(body.status);
  if (raw === undefined || raw === null) {
    const implied = MOMO_STATUS_IMPLIED_REASON[status];
    if (implied) return { code: implied, message: undefined, providerCode: body.status };
    return mapped === 'FAILED' ? { code: 'UNKNOWN', message: undefined, providerCode: undefined } : undefined;
  }
  const providerCode = typeof raw === 'string' ? raw : (raw.code ?? undefined);
  const message = typeof raw === 'string' ? undefined : (raw.message ?? undefined);
  return { code: providerCode ? mapMomoReason(providerCode, kind) : 'UNKNOWN', message, providerCode };
}

function partyOf(body: MomoCallback): Party | undefined {
  const party = body.payer ?? body.payee ?? body.intendedPayer;
  if (!party?.partyId) return undefined;
  return { idType: party.partyIdType ?? 'MSISDN', id: party.partyId };
}

/** An id as MoMo writes it; the sandbox answers `""` for an id it has not given (no id, not an id ""). */
function idOf(value: string | null | undefined): string | undefined {
  return value?.trim() ? value : undefined;
}

/** A MoMo callback body, for the transaction named by the callback URL, in relay vocabulary. */
export function normalizeMomoCallback(
  accountId: string,
  kind: string,
  reference: string,
  body: MomoCallback,
): ReportDraft {
  const amountText = body.amount ?? body.money?.amount;
  const value = amountText === undefined || amountText === null ? undefined : toDecimalString(amountText);
  const currency = body.currency ?? body.payerCurrency ?? body.money?.currency ?? undefined;
  const reason = reasonOf(body, kind);
  return {
    key: { provider: 'momo', account: accountId, reference },
    kind,
    status: mapMomoStatus(body.status),
    reason,
    // The provider's own word for the evidence when no failure reason carries it (a success: SUCCESSFUL).
    ...(reason ? {} : { said: { providerCode: body.status } }),
    providerTransactionId: idOf(body.financialTransactionId),
    externalId: idOf(body.externalId),
    amount: value === undefined ? undefined : { value, currency },
    party: partyOf(body),
    attributes: undefined,
  };
}
