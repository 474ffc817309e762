/**
 * Limits read by both the code that runs and the construct that sizes its resources (the bulkhead, the
 * buffer queue): one place, below the use cases, so infra/ reads them without importing a use case.
 */
import { PROVIDERS } from '../providers/registry';
import type { AckBudget } from '../providers/types';
import type { DestinationConfig, RelayConfig } from './schema';

/** Each provider's own budget (ProviderModule.ackBudget), by provider id. */
export const DEFAULT_ACK_BUDGETS: Readonly<Record<string, AckBudget>> = Object.fromEntries(
  PROVIDERS.flatMap((provider) => (provider.ackBudget ? [[provider.id, provider.ackBudget]] : [])),
);
/** For a provider that names none: the shortest (MoMo's), safe for any provider. */
const FALLBACK_ACK_BUDGET: AckBudget = { storeMs: 1200, ackMs: 1800 };

/** The provider's budget: `ackBudgets.<provider>` in the config, else the provider module's own. */
export function ackBudgetFor(config: Pick<RelayConfig, 'ackBudgets'>, provider: string): AckBudget {
  return config.ackBudgets?.[provider] ?? DEFAULT_ACK_BUDGETS[provider] ?? FALLBACK_ACK_BUDGET;
}

/**
 * How long a refusal waits for its quarantine write before answering: also the longest a request no
 * provider route matches (`$default`) holds a callback function execution (infra/relay/limits.ts).
 */
export const QUARANTINE_WRITE_BUDGET_MS = 1000;

/** The buffer queue's retention (SQS) in days. */
export const BUFFER_RETENTION_DAYS = 4;
/** Receives before SQS moves a record to the DLQ; see `bufferBackoffTotalSeconds` (shared/app/buffer/retry-backoff.ts). */
export const BUFFER_MAX_RECEIVE_COUNT = 340;

/** Lambda's smallest maximum concurrency of an SQS event source mapping. */
const MIN_EVENT_SOURCE_CONCURRENCY = 2;

/** A destination's concurrent delivery functions in AWS: its `concurrency`, at least Lambda's minimum of 2. */
export function deliveryConcurrency(destination: Pick<DestinationConfig, 'concurrency'>): number {
  return Math.max(MIN_EVENT_SOURCE_CONCURRENCY, destination.concurrency);
}
