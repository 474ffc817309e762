import type { ReportDraft } from '../../domain/transaction';
import { decideAirtelOutcome } from './mapping';
import { AIRTEL_DEFAULT_KIND, type AirtelCallback } from './schema';

function present(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * Which operation a callback is about. Airtel sends every status callback to the one URL of the
 * application and names no operation; a refund's message says it is one ("Refunded UGX 1000 of Trans ID
 * …", "Refund successful"), anything else is a push payment. Only an orphan takes this kind: a registered
 * transaction (a refund registered with kind `refund` and the refund's own `transaction.id`) keeps its own.
 */
function airtelCallbackKind(message: string | undefined): string {
  return message && /\brefund(?:ed|s)?\b/i.test(message) ? 'refund' : AIRTEL_DEFAULT_KIND;
}

/**
 * An Airtel status callback in relay vocabulary. The reference is the partner's `transaction.id`;
 * `airtel_money_id` (Airtel's own id, absent or empty on many failures) is the provider transaction
 * id. The callback carries no amount and no party. `kind`: airtelCallbackKind.
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
  const providerCode = outcome.resultCode ?? tx.status_code.trim();
  return {
    key: { provider: 'airtel', account: accountId, reference: tx.id },
    kind: airtelCallbackKind(message),
    status: outcome.status,
    // A failure's reason carries the provider's code and words; anything else (TS) says them for the evidence.
    ...(outcome.reason
      ? { reason: { code: outcome.reason, message, providerCode } }
      : { reason: undefined, said: { providerCode, description: message } }),
    providerTransactionId: present(tx.airtel_money_id) ?? present(tx.wallet_money_id),
    externalId: undefined,
    amount: undefined,
    party: undefined,
    attributes,
  };
}
