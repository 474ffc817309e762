import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { formatSilenceAlarms, SILENCE_ALARMS_ENV } from '../../shared/config/silence-alarms';
import {
  AMBIGUOUS_ESCALATED_METRIC,
  BADGE_EVENTS_METRIC,
  BADGE_LIST_INCONSISTENT_METRIC,
  BADGE_READ_FAILURES_METRIC,
  BADGE_READS_METRIC,
  CALLBACKS_RESUMED_METRIC,
  NOT_FOUND_CONFLICTS_METRIC,
  POLL_CYCLE_FAILURES_METRIC,
  REGISTRATION_EVENTS_REFUSED_METRIC,
  SILENCE_STARTED_METRIC,
  SILENT_ACCOUNTS_METRIC,
  SILENT_PROVIDERS_METRIC,
  STATUS_CALL_ERRORS_METRIC,
  STATUS_CREDENTIAL_FAILURES_METRIC,
  TRANSACTIONS_EXPIRED_METRIC,
  VERIFICATION_DISAGREEMENTS_METRIC,
} from '../../shared/config/metric-names';
import { providerWords } from '../relay/providers';
import type { AlarmSpec, GraphMetric, MonitoringKit } from './kit';
import type { RelayMonitoringTargets } from './types';

/**
 * The heartbeat's expression over the poller's own Lambda metrics (free): invocations that did not fail
 * (an error or a timeout) are completed poll cycles. A custom series of its own would bill all month.
 */
export const POLL_CYCLES_COMPLETED_EXPRESSION = 'FILL(invocations, 0) - FILL(errors, 0)';

/**
 * Reconciliation: the poller's heartbeat, credentials refused, a provider's status API down, and the
 * transactions a person must look at (expired, escalated, a success contradicted, a registration event
 * refused).
 */
export function monitorReconciliation(kit: MonitoringKit, targets: RelayMonitoringTargets): void {
  kit.facade.addLargeHeader('Reconciliation');
  kit.graphs('Relay', 'Reconciliation', [
    {
      title: 'Poll cycles',
      metrics: [
        pollerHeartbeat(kit, targets),
        kit.relayMetric(POLL_CYCLE_FAILURES_METRIC, 'Sum'),
        kit.relayMetric(STATUS_CALL_ERRORS_METRIC, 'Sum'),
        {
          name: STATUS_CREDENTIAL_FAILURES_METRIC,
          metric: kit.relayMetric(STATUS_CREDENTIAL_FAILURES_METRIC, 'Sum', Duration.minutes(5)),
          threshold: 1,
          persist: [2, 3],
          route: 'page',
          description:
            "A provider's status API refused the relay's credentials (401/403: a revoked or rotated key, an expired API user) in 2 of the last three 5-minute periods: no transaction of that account can be reconciled. See StatusApiCredentialFailures{provider,account} and the poller logs; update the account's API secret (docs/deploy.md).",
        },
      ],
    },
    {
      title: 'Transactions a person must look at',
      metrics: [
        ticketOnEvent(
          kit,
          TRANSACTIONS_EXPIRED_METRIC,
          'A transaction reached the end of its reconciliation window without a final answer (TransactionExpired): a person must look (the history, the provider; resolve by hand).',
        ),
        ticketOnEvent(
          kit,
          AMBIGUOUS_ESCALATED_METRIC,
          'A transaction was escalated (TransactionEscalated): it stayed ambiguous past escalateAmbiguousAfterSeconds, or sources disagreed, such as a NOT_FOUND conflict (the status API does not know a reference a callback reported on: usually the request was made with another API user than accounts.<provider>.<account>.api; docs/reconciliation.md, "Precedence"). Ask the provider; the transaction history names the conflict.',
        ),
        {
          name: VERIFICATION_DISAGREEMENTS_METRIC,
          metric: kit.relayMetric(VERIFICATION_DISAGREEMENTS_METRIC, 'Sum'),
          threshold: 1,
          route: 'page',
          description:
            'A status check contradicted a success callback (UNVERIFIED_SUCCESS conflict): possibly a forged callback. Check the transaction history and the quarantine.',
        },
        kit.relayMetric(NOT_FOUND_CONFLICTS_METRIC, 'Sum'),
        {
          // Like StatementImportRefused: a partner's system sent it, nobody is answered, one is enough.
          name: REGISTRATION_EVENTS_REFUSED_METRIC,
          metric: kit.relayMetric(REGISTRATION_EVENTS_REFUSED_METRIC, 'Sum', Duration.minutes(5)),
          threshold: 1,
          route: 'ticket',
          description:
            'A TransactionInitiated event from the partner was refused (bad input) in the last 5 minutes: the transaction is not registered and no HTTP answer told the partner. The audit log (transaction.register, outcome refused, path TransactionInitiated/<event id>) and the transaction-initiated function\'s "TransactionInitiated event refused" log line name the event and the error code; the partner fixes its event and sends it again (docs/management-api.md).',
        },
      ],
    },
  ]);
  providerOutage(kit, targets.providers ?? []);
  if (targets.badges) monitorBadges(kit);
}

/** Completed poll cycles (the poller's own invocations − errors); alarmed unless polling is off on purpose. */
function pollerHeartbeat(kit: MonitoringKit, targets: RelayMonitoringTargets): GraphMetric | AlarmSpec {
  const period = kit.settings.pollerHeartbeatPeriod || Duration.minutes(10);
  const metric = new cloudwatch.MathExpression({
    expression: POLL_CYCLES_COMPLETED_EXPRESSION,
    usingMetrics: {
      invocations: targets.pollerFunction.metricInvocations({ statistic: 'Sum', period }),
      errors: targets.pollerFunction.metricErrors({ statistic: 'Sum', period }),
    },
    period,
    label: 'Poll cycles completed (poller invocations − errors)',
  });
  // Polling switched off on purpose is no outage: the cycles are still graphed, nothing pages.
  if (kit.settings.pollerHeartbeatPeriod === false) return metric;
  return {
    name: 'PollerHeartbeat',
    metric,
    threshold: 1,
    comparison: '<',
    // No data is exactly what a stopped poller looks like.
    missing: cloudwatch.TreatMissingData.BREACHING,
    route: 'degraded',
    description: `No poll cycle completed for ${period.toHumanString()}: nothing is being reconciled (lost callbacks stay pending, nothing expires). Check the schedule (pollingEnabled, the PollSchedule DLQ: it has no alarm of its own, this is it), the poller's errors, throttles and timeouts, StorageOutage.`,
  };
}

/** A ticket when one event of a kind happens (the relay metric's roll-up, ≥ 1 in a minute). */
function ticketOnEvent(kit: MonitoringKit, metricName: string, description: string): AlarmSpec {
  return {
    name: metricName,
    metric: kit.relayMetric(metricName, 'Sum'),
    threshold: 1,
    route: 'ticket',
    description,
  };
}

/**
 * One alarm for a provider outage, whichever provider: a Metrics Insights query sums
 * StatusCallErrors{provider,account,error} over every account, so the alarm does not grow with the
 * accounts or the providers; the dashboard's per-provider graph says whose.
 */
function providerOutage(kit: MonitoringKit, providers: readonly string[]): void {
  if (!providers.length) return;
  const { settings } = kit;
  const errors = settings.providerOutageErrors ?? 10;
  const period = Duration.minutes(5);
  kit.alarm('ProviderOutage', {
    name: 'ProviderOutage',
    metric: new cloudwatch.MathExpression({
      expression: `SELECT SUM(${STATUS_CALL_ERRORS_METRIC}) FROM "${settings.metricsNamespace}"`,
      usingMetrics: {},
      period,
      label: 'status API errors',
    }),
    threshold: errors,
    persist: [2, 3],
    route: 'page',
    description: `A provider's status API failed ${errors} or more times (timeouts, 5xx, unreadable answers) in 2 of the last three 5-minute periods: the provider is probably down (which one: the dashboard's "Status API errors per provider", StatusCallErrors{provider}). Its transactions stay pending and are polled again; its accounts' silence tickets follow. Check the provider's status page; tell the partner. One page for a provider outage, not one per account.`,
  });
  kit.graphs('StatusApi', 'Status API errors per provider', [
    {
      title: 'StatusCallErrors per provider (sum per 5 minutes)',
      metrics: providers.map((provider) =>
        kit.relayMetricBy(STATUS_CALL_ERRORS_METRIC, { provider }, 'Sum', period),
      ),
    },
  ]);
}

/** The badge feed (docs/badges.md): a shop's badge API that keeps failing tickets. */
function monitorBadges(kit: MonitoringKit): void {
  kit.graphs('Relay', 'Badge feed', [
    {
      title: 'Badge feed (docs/badges.md)',
      metrics: [
        kit.relayMetric(BADGE_READS_METRIC, 'Sum'),
        kit.relayMetric(BADGE_EVENTS_METRIC, 'Sum'),
        kit.relayMetric(BADGE_LIST_INCONSISTENT_METRIC, 'Sum'),
        {
          name: BADGE_READ_FAILURES_METRIC,
          metric: kit.relayMetric(BADGE_READ_FAILURES_METRIC, 'Sum'),
          threshold: 1,
          persist: [3, 5],
          route: 'ticket',
          description:
            "A shop's badge API failed to read (error, timeout, garbage, credentials) in 3 of the last 5 minutes: no badge change is seen meanwhile (nothing is changed either). See the poller logs and the shop's read-failure record (docs/badges.md).",
        },
      ],
    },
  ]);
}

/**
 * Callback health: one silence ticket per provider (never per account: an account's alarm metric was
 * $0.10 a month each) and SilentAccounts, written by the poller while an account whose transactions wait
 * has gone quiet. The provider ticket reads SilentProviders{provider}, written by the same poller look
 * while no account of the provider has called back for the ticket's period (the accounts' last-callback
 * records): the period is handed to the poller here, beside the alarm. A count of callbacks per provider
 * on every callback billed $0.30 a month a series whether anyone was silent or not (issue 28).
 */
export function monitorSilence(kit: MonitoringKit, targets: RelayMonitoringTargets): void {
  const silences = silencePeriodsByProvider(targets.accounts, kit.settings.callbackSilence);
  const silentPeriod = Duration.minutes(5);
  kit.graphs('Relay', 'Callback health', [
    {
      title: 'Silent accounts',
      metrics: [
        {
          // Written by the poller each cycle while an account is silent (nothing otherwise: no data is
          // OK), so it returns to OK once the callbacks are back (docs/reconciliation.md#callback-health).
          name: SILENT_ACCOUNTS_METRIC,
          metric: kit.relayMetric(SILENT_ACCOUNTS_METRIC, 'Maximum', silentPeriod),
          threshold: 1,
          route: 'ticket',
          description:
            "An account's callbacks stopped while transactions wait for one (CallbackSilence event): the relay polls its waiting transactions every silencePollSeconds meanwhile, and returns to OK after CallbacksResumed. Check the account's callback URLs (npm run check-urls), path secret, the provider's status page.",
        },
        kit.relayMetric(SILENCE_STARTED_METRIC, 'Sum'),
        kit.relayMetric(CALLBACKS_RESUMED_METRIC, 'Sum'),
      ],
    },
  ]);
  // The poller writes the metric: without it (polling off on purpose, or a poller this construct did not
  // make and cannot configure) an alarm would never fire, so there is none.
  const poller = targets.pollerFunction;
  if (
    !silences.length ||
    kit.settings.pollerHeartbeatPeriod === false ||
    !(poller instanceof lambda.Function)
  )
    return;
  poller.addEnvironment(
    SILENCE_ALARMS_ENV,
    formatSilenceAlarms(Object.fromEntries(silences.map((s) => [s.provider, s.period.toSeconds()]))),
  );
  kit.graphs('CallbackSilence', 'Silent providers', [
    {
      title: 'SilentProviders per provider (written by the poller while no account of it calls back)',
      metrics: silences.map(({ provider, period, accounts }): AlarmSpec => ({
        name: `Silence-${provider}`,
        metric: kit.relayMetricBy(SILENT_PROVIDERS_METRIC, { provider }, 'Maximum', silentPeriod),
        threshold: 1,
        // No data is no silence: the poller writes the metric each cycle while the provider is silent;
        // a poller that stops is PollerHeartbeat's page.
        missing: cloudwatch.TreatMissingData.NOT_BREACHING,
        route: 'ticket',
        description: silenceDescription(provider, period, accounts),
      })),
    },
  ]);
}

/**
 * Per provider with an account to watch: the shortest silence period among its accounts (an account set
 * to false is not watched; a provider whose accounts are all false gets no alarm) and the accounts.
 */
function silencePeriodsByProvider(
  accounts: ReadonlyArray<{ readonly provider: string; readonly account: string }>,
  periodOf: (provider: string, account: string) => Duration | false,
): Array<{ provider: string; period: Duration; accounts: string[] }> {
  const found = new Map<string, { provider: string; period: Duration; accounts: string[] }>();
  for (const { provider, account } of accounts) {
    const period = periodOf(provider, account);
    if (period === false) continue;
    const entry = found.get(provider);
    if (!entry) found.set(provider, { provider, period, accounts: [account] });
    else {
      entry.accounts.push(account);
      if (period.toSeconds() < entry.period.toSeconds()) entry.period = period;
    }
  }
  return [...found.values()];
}

/** What the ticket says: the provider, its watched accounts (cut short past 1,024 characters), the causes. */
function silenceDescription(provider: string, period: Duration, accounts: readonly string[]): string {
  const head = `No callback for ${period.toHumanString()} from any account of ${provider} (the poller's look at the accounts' last callbacks, each cycle; none since the deployment counts): the provider may have stopped calling back (${['callback URLs', 'path secrets', ...providerWords.urlRegistrations()].join(', ')}) or nobody paid. An account silent while its siblings call back is named by SilentAccounts (its transactions waiting) and the poller's log. Tune or turn off with callbackSilencePeriod / callbackSilencePeriods (the shortest of the provider's accounts is used). OK again within 5 minutes of the next callback. Accounts: `;
  const list = accounts.join(', ');
  const room = 1024 - head.length;
  return head + (list.length <= room ? list : `${list.slice(0, Math.max(0, room - 2))}…`);
}
