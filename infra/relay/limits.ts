import { Duration } from 'aws-cdk-lib';
import { ackBudgetFor, QUARANTINE_WRITE_BUDGET_MS } from '../../shared/config/limits';
import type { RelayConfig } from '../../shared/config/relay-config';
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
export const CALLBACK_INTEGRATION_TIMEOUT: Duration = Duration.millis(7500);
export const CALLBACK_FUNCTION_TIMEOUT: Duration = Duration.seconds(8);

/** The buffer consumer's timeout; the ingress buffer's visibility timeout is 6× it (AWS's advice). */
export const BUFFER_CONSUMER_TIMEOUT: Duration = Duration.seconds(30);

/**
 * Reserved concurrency for `rps` admitted requests a second that each take `worstCase`: Little's law,
 * `ceil(rps × worstCase)`. C2B validation at its default throttle: 5 rps × 7.5 s = 38 (its own function,
 * so a burst over it throttles only itself).
 */
export function concurrencyFor(rps: number, worstCase: Duration): number {
  return Math.ceil((rps * worstCase.toMilliseconds()) / 1000);
}

/**
 * Throttling of each provider's callback routes (`ANY /v1/<provider>/{proxy+}`) unless
 * `providerThrottles` says otherwise. 20 rps is 72,000 callbacks an hour per provider, several times a
 * busy pay bill's month-end peak hour (docs/deploy.md, "The bulkhead"); a burst of one second's rate
 * absorbs a provider's clumped deliveries and costs one reserved execution per token.
 */
const DEFAULT_PROVIDER_THROTTLE: RelayThrottle = { rateLimit: 20, burstLimit: 20 };

/**
 * The stage default: `$default`, paths no provider route matches (a provider without a configured
 * account, scanners, probes; each answered 404 and quarantined, sampled under a flood). No provider's
 * traffic, so a small share: over it API Gateway answers 429 without running anything.
 */
export const DEFAULT_CALLBACK_THROTTLE: RelayThrottle = { rateLimit: 10, burstLimit: 10 };
/** Each management route's throttle. */
export const DEFAULT_MANAGEMENT_THROTTLE: RelayThrottle = { rateLimit: 50, burstLimit: 100 };

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

/** One route's share of the callback function's reserved concurrency. */
export interface BulkheadShare {
  /** `ANY /v1/<provider>/{proxy+}`, or `$default`. */
  readonly route: string;
  /** The provider whose callbacks the route carries (none for `$default`). */
  readonly provider?: string;
  readonly throttle: RelayThrottle;
  /** The longest one request holds an execution on the degraded path, in ms. */
  readonly degradedMs: number;
  /** `ceil(rateLimit × degradedMs) + burstLimit`. */
  readonly concurrency: number;
}

export interface CallbackBulkhead {
  readonly shares: readonly BulkheadShare[];
  /** The callback function's reserved concurrency: the sum of the shares. */
  readonly total: number;
}

/**
 * The callback function's bulkhead: a share for each route that reaches it, every provider's callback
 * route and `$default`, so that no route can hold another's executions, even while DynamoDB is down.
 *
 * A provider route's request holds an execution at most the provider's degraded ack budget (`ackMs` of
 * `ackBudgets.<provider>`, else the provider module's own `ackBudget`, from 1.8 s to 5 s today):
 * the handler answers by then whatever the store and the ingress buffer do. A `$default` request waits
 * at most the quarantine write budget (1 s). API Gateway's token bucket admits at most `burst + rate × t`
 * requests in any `t` seconds, so a route never has more than `ceil(rate × degraded s) + burst` in
 * flight: its share. The reservation is the sum of the shares.
 */
export function callbackBulkhead(input: {
  providerThrottles?: Record<string, RelayThrottle>;
  /** The `$default` route's (the stage's) throttle. */
  throttle?: RelayThrottle;
  /** Providers with a configured account (their routes exist); all of the registry when absent. */
  providers?: readonly string[];
  /** The config's `ackBudgets` overrides. */
  config?: Pick<RelayConfig, 'ackBudgets'>;
}): CallbackBulkhead {
  const share = (
    route: string,
    throttle: RelayThrottle,
    degradedMs: number,
    provider?: string,
  ): BulkheadShare => ({
    route,
    ...(provider ? { provider } : {}),
    throttle,
    degradedMs,
    concurrency: concurrencyFor(throttle.rateLimit, Duration.millis(degradedMs)) + throttle.burstLimit,
  });
  const shares: BulkheadShare[] = [
    ...providerThrottles(input.providerThrottles, input.providers).map(({ provider, throttle }) =>
      share(
        `ANY /v1/${provider}/{proxy+}`,
        throttle,
        ackBudgetFor(input.config ?? { ackBudgets: {} }, provider).ackMs,
        provider,
      ),
    ),
    share('$default', input.throttle ?? DEFAULT_CALLBACK_THROTTLE, QUARANTINE_WRITE_BUDGET_MS),
  ];
  return { shares, total: shares.reduce((sum, s) => sum + s.concurrency, 0) };
}

/** One share's arithmetic as synth prints it: "<provider>: 20 rps × 5 s + burst 20 = 120". */
export function describeShare(share: BulkheadShare): string {
  const { rateLimit, burstLimit } = share.throttle;
  return `${share.provider ?? share.route}: ${rateLimit} rps × ${share.degradedMs / 1000} s + burst ${burstLimit} = ${share.concurrency}`;
}

/**
 * Reserved concurrency of the callback function with the default throttles and every provider of the
 * registry (docs/deploy.md#the-bulkhead has the table: 252 with today's three providers). The construct sizes it from the throttles and the config it is given (`callbackBulkhead`).
 */
export const DEFAULT_CALLBACK_RESERVED_CONCURRENCY: number = callbackBulkhead({}).total;
