/**
 * Metric names and the namespace that both an emitter (shared/) and an alarm (infra/) use: declared once
 * here, below the use cases and adapters, so the construct never imports the code that emits them.
 */

/** CloudWatch namespace of the relay's metrics unless configured (the construct's `metricsNamespace`). */
export const DEFAULT_METRICS_NAMESPACE = 'MobileMoneyRelay';

/** Age of an account's last good pull, in seconds, written every tick (shared/app/provider-records/pull-cycle.ts). */
export const PULL_AGE_METRIC = 'StatementPullAgeSeconds';
/** Written per file refused (malformed, unknown account, a key outside the layout): the ImportRefused ticket. */
export const IMPORTS_REFUSED_METRIC = 'StatementImportsRefused';
/** Written per file imported. */
export const IMPORTS_DONE_METRIC = 'StatementImportsDone';

/** Written by every scheduled-close run: account-days whose SLA passed and are still open after it. */
export const DAYS_OVERDUE_METRIC = 'StatementDaysOverdue';
