import { Duration } from 'aws-cdk-lib';
import type { RelayThrottle } from './props';
import { PROVIDER_INFRA_DECLARATIONS } from './providers';

/**
 * Timeouts of the public edge. The longest a provider waits for a callback answer is 8 s
 * (`PROVIDER_ACK_LIMIT`, from the providers' infra declarations); where the handler waits on a decision,
 * it answers by the account's deadline setting (the provider's `callbackDeadlines`: default 5 s, at most
 * 7.5 s) minus a margin. API Gateway gives up on the callback integration at 7.5 s, so even a hung
 * function is answered (503) before that limit; the function may run 0.5 s longer so a store write
 * already under way still lands (the poller reconciles). Shorter provider budgets are kept in code (the
 * store budget, then the ingress buffer).
 */
export const CALLBACK_INTEGRATION_TIMEOUT = Duration.millis(7500);
export const CALLBACK_FUNCTION_TIMEOUT = Duration.seconds(8);

/** The buffer consumer's timeout; the ingress buffer's visibility timeout is 6× it (AWS's advice). */
export const BUFFER_CONSUMER_TIMEOUT = Duration.seconds(30);

/**
 * How long one callback takes on the degraded path: DynamoDB slow (its SDK timeouts and retries spent),
 * then the ingress buffer's SendMessage. Reserved concurrency is sized against it, not the 50 ms of a
 * healthy write: an outage is when every execution is needed.
 */
export const DEGRADED_CALLBACK_DURATION = Duration.millis(1800);

/**
 * Reserved concurrency for `rps` admitted requests a second that each take `worstCase`: Little's law,
 * `ceil(rps × worstCase)`. At the default throttles: callbacks 3 providers × 20 rps × 1.8 s = 108;
 * C2B validation 5 rps × 7.5 s = 38.
 */
export function concurrencyFor(rps: number, worstCase: Duration): number {
  return Math.ceil((rps * worstCase.toMilliseconds()) / 1000);
}

/**
 * Throttling of each provider's callback routes (`ANY /v1/<provider>/{proxy+}`) unless
 * `providerThrottles` says otherwise: the relay's callback capacity is shared out per provider.
 */
export const DEFAULT_PROVIDER_THROTTLE: RelayThrottle = { rateLimit: 20, burstLimit: 40 };

/**
 * Reserved concurrency of the callback function with the default throttles (3 providers):
 * `concurrencyFor(3 × 20, 1.8 s)` = 108 (one route throttle per provider of the registry). With `providerThrottles` set, the construct sizes it from
 * those rates the same way, unless `reservedConcurrency.callback` says otherwise.
 */
export const DEFAULT_CALLBACK_RESERVED_CONCURRENCY = callbackConcurrencyFor({});

/** The provider callback routes' throttles: `providerThrottles[id]`, else the default. */
export function providerThrottles(
  overrides: Record<string, RelayThrottle> | undefined,
  providers?: readonly string[],
): Array<{ provider: string; throttle: RelayThrottle }> {
  // No account configured yet: size for every provider rather than for none.
  const declared = PROVIDER_INFRA_DECLARATIONS.filter(
    ({ id }) => !providers?.length || providers.includes(id),
  );
  return declared.map(({ id }) => ({
    provider: id,
    throttle: overrides?.[id] ?? DEFAULT_PROVIDER_THROTTLE,
  }));
}

/**
 * Reserved concurrency of the callback function: the rate of the route of every provider with a
 * configured account (`providers`; all of the registry when absent) × 1.8 s, at least 1.
 */
export function callbackConcurrencyFor(
  overrides: Record<string, RelayThrottle> | undefined,
  providers?: readonly string[],
): number {
  const rps = providerThrottles(overrides, providers).reduce((sum, p) => sum + p.throttle.rateLimit, 0);
  return Math.max(1, concurrencyFor(rps, DEGRADED_CALLBACK_DURATION));
}

/**
 * Throttling defaults: the stage default (`$default`: paths no provider route matches, so only noise
 * and probes; 404 from the handler) and each management route.
 */
export const DEFAULT_CALLBACK_THROTTLE: RelayThrottle = { rateLimit: 500, burstLimit: 1000 };
export const DEFAULT_MANAGEMENT_THROTTLE: RelayThrottle = { rateLimit: 50, burstLimit: 100 };

/** Lambda caps a function's environment at 4 KB in total; the inline config must leave room. */
export const MAX_INLINE_CONFIG_BYTES = 3 * 1024;
