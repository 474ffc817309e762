import type { ReportDraft } from '../../domain/callback-services';
import type { Reason } from '../../domain/reasons';
import type { Party } from '../../domain/transaction';
import { toDecimalString } from '../../util/money';
import { canonicalMomoCode, MOMO_STATUS_IMPLIED_REASON, mapMomoReason, mapMomoStatus } from './mapping';
import type { MomoCallback } from './schema';

function reasonOf(body: MomoCallback): Reason | undefined {
  const raw = body.reason ?? body.errorReason;
  const status = canonicalMomoCode(body.status);
  if (raw === undefined || raw === null) {
    const implied = MOMO_STATUS_IMPLIED_REASON[status];
    if (implied) return { code: implied, message: undefined, providerCode: body.status };
    return mapMomoStatus(body.status) === 'FAILED'
      ? { code: 'UNKNOWN', message: undefined, providerCode: undefined }
      : undefined;
  }
  const providerCode = typeof raw === 'string' ? raw : raw.code;
  const message = typeof raw === 'string' ? undefined : raw.message;
  return { code: providerCode ? mapMomoReason(providerCode) : 'UNKNOWN', message, providerCode };
}

function partyOf(body: MomoCallback): Party | undefined {
  const party = body.payer ?? body.payee ?? body.intendedPayer;
  if (!party?.partyId) return undefined;
  return { idType: party.partyIdType ?? 'MSISDN', id: party.partyId };
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
  return {
    key: { provider: 'momo', account: accountId, reference },
    kind,
    status: mapMomoStatus(body.status),
    reason: reasonOf(body),
    providerTransactionId: body.financialTransactionId ?? undefined,
    externalId: body.externalId ?? undefined,
    amount: value === undefined ? undefined : { value, currency },
    party: partyOf(body),
    attributes: undefined,
  };
}
