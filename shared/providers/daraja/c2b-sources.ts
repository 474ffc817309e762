import { type C2BDecision, parsePartnerAnswer } from './c2b-validation';
import type { DarajaC2bSettings } from './schema';

/** The partner answers a small JSON document; anything bigger is not an answer. */
const MAX_ANSWER_BYTES = 16 * 1024;

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/**
 * Asks the partner's decision endpoint: POST of the validation payload as Daraja sent it (JSON), with
 * `X-Relay-Account` and, when configured, `Authorization: Bearer <token>`. Any non-2xx status, a body
 * that is not a valid answer, or a network error is a failed source (the default then answers).
 */
export async function askPartnerEndpoint(
  partner: NonNullable<DarajaC2bSettings['partner']>,
  account: string,
  payload: unknown,
  signal: AbortSignal,
  fetchImpl: FetchLike = fetch,
): Promise<C2BDecision> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'x-relay-account': account,
  };
  if (partner.bearerToken) headers.authorization = `Bearer ${partner.bearerToken}`;
  const response = await fetchImpl(partner.url, {
    method: 'POST',
    headers,
    body: JSON.stringify(payload),
    signal,
    redirect: 'error',
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`partner endpoint answered HTTP ${response.status}`);
  }
  const text = await response.text();
  if (text.length > MAX_ANSWER_BYTES) throw new Error('partner endpoint answer is too large');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error('partner endpoint answer is not JSON');
  }
  const decision = parsePartnerAnswer(body);
  if ('error' in decision) throw new Error(`partner endpoint answer is invalid: ${decision.error}`);
  return decision;
}
