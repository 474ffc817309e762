import type { ReportDraft } from '../../domain/transaction';
import { decideAirtelOutcome } from './mapping';
import { AIRTEL_DEFAULT_KIND, type AirtelCallback } from './schema';

function present(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * An Airtel status callback in relay vocabulary. The reference is the partner's `transaction.id`;
 * `airtel_money_id` (Airtel's own id, absent or empty on many failures) is the provider transaction
 * id. The callback carries no amount and no party. `kind` only matters for an orphan (a registered
 * transaction keeps its own kind); the callback does not say it, so orphans are `payment`.
 */
export function normalizeAirtelCallback(accountId: string, body: AirtelCallback): ReportDraft {
  const tx = body.transaction;
  const message = present(tx.message);
  const outcome = decideAirtelOutcome({
    statusCode: tx.status_code,
    resultCodes: [tx.response_code, tx.result_code, body.status?.response_code, body.status?.result_code],
    message,
  });
  const attributes: Record<string, string> = { airtelStatusCode: tx.status_code.trim() };
  if (outcome.resultCode) attributes.airtelResultCode = outcome.resultCode;
  return {
    key: { provider: 'airtel', account: accountId, reference: tx.id },
    kind: AIRTEL_DEFAULT_KIND,
    status: outcome.status,
    reason: outcome.reason
      ? { code: outcome.reason, message, providerCode: outcome.resultCode ?? tx.status_code.trim() }
      : undefined,
    providerTransactionId: present(tx.airtel_money_id) ?? present(tx.wallet_money_id),
    externalId: undefined,
    amount: undefined,
    party: undefined,
    attributes,
  };
}
