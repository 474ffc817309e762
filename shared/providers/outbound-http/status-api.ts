import type { StatusAnswer, StatusApi, StatusQuery } from '../types';
import type { AccountGuards } from './limits';

/**
 * The skeleton every provider's status API client is built on: the provider-specific `check` (build the
 * request, call it through `authorizedCall`, classify the answer) runs under the account's concurrency
 * cap, and a credentials refusal it classifies goes through the account's credentials gate, so bad
 * credentials give one error and one warning per account, not one per transaction. `extra` carries what
 * the client exposes beside `check` (token request counts for tests and the bench).
 */
export function guardedStatusApi<Extra extends object>(
  guards: Pick<AccountGuards, 'gate' | 'limit'>,
  check: (query: StatusQuery, signal?: AbortSignal) => Promise<StatusAnswer>,
  extra: Extra,
): StatusApi & Extra {
  return {
    ...extra,
    check: (query, signal) =>
      guards.limit.run(async () => {
        const answer = await check(query, signal);
        return answer.type === 'error' && answer.error === 'credentials'
          ? guards.gate.refuse(answer)
          : answer;
      }),
  };
}
