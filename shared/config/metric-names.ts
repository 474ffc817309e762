/**
 * Metric names and the namespace that both an emitter (shared/) and an alarm (infra/) use: declared once
 * here, below the use cases and adapters, so the construct never imports the code that emits them.
 */

/** CloudWatch namespace of the relay's metrics unless configured (the construct's `metricsNamespace`). */
export const DEFAULT_METRICS_NAMESPACE = 'MobileMoneyRelay';

/** Age of an account's last good pull, in seconds, written every tick (shared/app/provider-records/pull-cycle.ts). */
export const PULL_AGE_METRIC = 'StatementPullAgeSeconds';
