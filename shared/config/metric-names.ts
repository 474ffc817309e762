/**
 * Every custom metric the relay publishes, and its namespace, declared once here: the emitters
 * (shared/, functions/, local/, the edge's inline EMF writers), the alarms and the dashboard (infra/)
 * name a metric by its constant, never by a string of their own. It lives below the use cases and
 * adapters so the construct never imports the code that emits them. test/infra/metric-names.test.ts
 * fails when an alarm or a widget reads a name that no emitter writes.
 *
 * Keep the form `export const X_METRIC = 'Name';`: `npm run cost` reads the emitters' constants from it.
 */

/** CloudWatch namespace of the relay's metrics unless configured (the construct's `metricsNamespace`). */
export const DEFAULT_METRICS_NAMESPACE = 'MobileMoneyRelay';

// ---- callbacks (shared/app/callbacks, shared/http, functions/callback) ----------------------------
/** Callbacks refused (authentication or format). */
export const CALLBACKS_REJECTED_METRIC = 'CallbacksRejected';
/** Refusals counted instead of stored (quarantine flood limits). */
export const REFUSALS_NOT_STORED_METRIC = 'RefusalsNotStored';
/** Callbacks accepted with the previous path secret (a rotation still in progress). */
export const PREVIOUS_PATH_SECRET_METRIC = 'PreviousPathSecretUsed';
/** Callbacks acked from the ingress buffer because the table could not be written in time. */
export const CALLBACKS_BUFFERED_METRIC = 'CallbacksBuffered';
/** Callback invocations while the ingress buffer is off (no queue URL or no seal key at cold start). */
export const INGRESS_BUFFER_OFF_METRIC = 'IngressBufferOff';
/** Buffered callbacks the buffer consumer applied / could not apply. */
export const BUFFERED_APPLIED_METRIC = 'BufferedCallbacksApplied';
export const BUFFERED_FAILED_METRIC = 'BufferedCallbacksFailed';
/** Requests refused by the origin check (they went around CloudFront, or it sent a wrong secret). */
export const ORIGIN_VERIFY_REFUSALS_METRIC = 'OriginVerifyRefusals';
/** Written by the edge's synthetic check every run: providers whose route failed through the public URL. */
export const EDGE_PROBE_FAILURES_METRIC = 'EdgeProbeFailures';
/** Requests the stage throttled (429), counted from the API access logs by a metric filter (infra/). */
export const STAGE_THROTTLED_METRIC = 'StageThrottled';

// ---- callback health (shared/app/callbacks/callback-health.ts) -------------------------------------
/** Accounts whose callbacks are silent, written by the poller's callback-health look while any is. */
export const SILENT_ACCOUNTS_METRIC = 'SilentAccounts';
export const SILENCE_STARTED_METRIC = 'CallbackSilenceStarted';
export const CALLBACKS_RESUMED_METRIC = 'CallbacksResumed';
export const SILENT_HASTENED_METRIC = 'SilentTransactionsHastened';
/**
 * Per provider, written by the poller's callback-health look only while no account of the provider has
 * called back for the provider's silence alarm period: the silence tickets. Not a count of callbacks per
 * provider (a series on every callback billed $0.30 a month each, issue 28): no data is no silence.
 */
export const SILENT_PROVIDERS_METRIC = 'SilentProviders';

// ---- reconciliation (shared/app/reconciliation) ----------------------------------------------------
/** Poll cycles that could not read the due index: the table is unreachable from the poller. */
export const POLL_CYCLE_FAILURES_METRIC = 'PollCycleFailures';
export const PICKUP_DELAY_METRIC = 'PickupDelay';
/** Status API calls that failed (timeouts, 5xx, garbage), per provider, account and error. */
export const STATUS_CALL_ERRORS_METRIC = 'StatusCallErrors';
/** Status API calls refused for credentials (401/403, a revoked key), by the poller and "check now". */
export const STATUS_CREDENTIAL_FAILURES_METRIC = 'StatusApiCredentialFailures';
export const TRANSACTIONS_FINALIZED_METRIC = 'TransactionsFinalized';
export const TIME_TO_FINAL_METRIC = 'TimeToFinal';
export const FINALIZED_WITHOUT_CALLBACK_METRIC = 'FinalizedWithoutCallback';
export const TRANSACTIONS_EXPIRED_METRIC = 'TransactionsExpired';
export const AMBIGUOUS_ESCALATED_METRIC = 'AmbiguousEscalated';
/** A status check contradicted a success callback (UNVERIFIED_SUCCESS conflict). */
export const VERIFICATION_DISAGREEMENTS_METRIC = 'VerificationDisagreements';
/** The status API does not know a reference a callback reported on (NOT_FOUND conflict). */
export const NOT_FOUND_CONFLICTS_METRIC = 'StatusNotFoundConflicts';

// ---- registrations (shared/app/transactions/register-transaction.ts) ------------------------------
/** TransactionInitiated events refused (bad input): no HTTP answer tells the partner, this and the audit do. */
export const REGISTRATION_EVENTS_REFUSED_METRIC = 'RegistrationEventsRefused';

// ---- outbox ----------------------------------------------------------------------------------------
export const EVENT_PUBLISH_FAILURES_METRIC = 'EventPublishFailures';

// ---- badges (shared/app/badges) --------------------------------------------------------------------
export const BADGE_READS_METRIC = 'BadgeReads';
export const BADGE_READ_FAILURES_METRIC = 'BadgeReadFailures';
export const BADGE_EVENTS_METRIC = 'BadgeEvents';
export const BADGE_REFUSED_METRIC = 'BadgeRefused';
export const BADGE_INVALID_DATES_METRIC = 'BadgeInvalidDates';
export const BADGE_LIST_INCONSISTENT_METRIC = 'BadgeListInconsistent';

// ---- webhook deliveries (shared/app/delivery) ------------------------------------------------------
export const DELIVERIES_DELIVERED_METRIC = 'DeliveriesDelivered';
export const DELIVERIES_DEAD_LETTERED_METRIC = 'DeliveriesDeadLettered';
export const DESTINATIONS_DISABLED_METRIC = 'DestinationsDisabled';
export const DELIVERY_MESSAGES_REFUSED_METRIC = 'DeliveryMessagesRefused';
export const DELIVERY_ERRORS_METRIC = 'DeliveryErrors';

// ---- provider records and statements (shared/app/provider-records, shared/app/statements) ----------
/** Age of an account's last good pull, in seconds, written every tick (shared/app/provider-records/pull-cycle.ts). */
export const PULL_AGE_METRIC = 'StatementPullAgeSeconds';
export const PULL_FAILURES_METRIC = 'StatementPullFailures';
export const BALANCE_FAILURES_METRIC = 'BalanceSnapshotFailures';
/** Written per file refused (malformed, unknown account, a key outside the layout): the ImportRefused ticket. */
export const IMPORTS_REFUSED_METRIC = 'StatementImportsRefused';
/** Written per file imported. */
export const IMPORTS_DONE_METRIC = 'StatementImportsDone';
/** Written by every scheduled-close run: account-days whose SLA passed and are still open after it. */
export const DAYS_OVERDUE_METRIC = 'StatementDaysOverdue';
export const DAYS_CLOSED_METRIC = 'StatementDaysClosed';

// ---- published without their roll-up ---------------------------------------------------------------
/**
 * Metrics published with their dimensions only, without the roll-up every other metric gets
 * (shared/adapters/metrics/powertools-metrics.ts): each alarm and graph on them reads the dimensioned
 * series (per provider, or summed / maximised over the providers by metric math or a Metrics Insights
 * query), so a roll-up would bill $0.30 a month for nothing (issue 28). test/infra/metric-names.test.ts
 * fails when an alarm or a graph reads the roll-up of one of these.
 */
export const METRICS_WITHOUT_ROLL_UP: readonly string[] = [SILENT_PROVIDERS_METRIC, PULL_AGE_METRIC];
