import { Duration } from 'aws-cdk-lib';
import type { RelayThrottle } from './props';

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

/** Reserved concurrency of the callback function unless `reservedConcurrency.callback` says otherwise. */
export const DEFAULT_CALLBACK_RESERVED_CONCURRENCY = 50;

/** Throttling defaults: provider callbacks (`$default`) and each management route. */
export const DEFAULT_CALLBACK_THROTTLE: RelayThrottle = { rateLimit: 500, burstLimit: 1000 };
export const DEFAULT_MANAGEMENT_THROTTLE: RelayThrottle = { rateLimit: 50, burstLimit: 100 };

/** Lambda caps a function's environment at 4 KB in total; the inline config must leave room. */
export const MAX_INLINE_CONFIG_BYTES = 3 * 1024;
