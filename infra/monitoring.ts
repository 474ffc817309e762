import { Duration, Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { MonitoringFacade } from 'cdk-monitoring-constructs';
import { Construct } from 'constructs';
import {
  AMBIGUOUS_ESCALATED_METRIC,
  SILENT_PROVIDERS_METRIC,
  CALLBACKS_REJECTED_METRIC,
  INGRESS_BUFFER_OFF_METRIC,
  REGISTRATION_EVENTS_REFUSED_METRIC,
  SILENT_ACCOUNTS_METRIC,
  STATUS_CREDENTIAL_FAILURES_METRIC,
  TRANSACTIONS_EXPIRED_METRIC,
  VERIFICATION_DISAGREEMENTS_METRIC,
} from '../shared/config/metric-names';
import { monitorAcks, monitorApi, monitorIngress } from './monitoring/callbacks';
import { edgeAlarms } from './monitoring/edge';
import { monitorFunctions } from './monitoring/functions';
import { MonitoringKit } from './monitoring/kit';
import { edgeOutage, serviceDegraded } from './monitoring/outages';
import { monitorReconciliation, monitorSilence } from './monitoring/polling';
import { monitorStorage } from './monitoring/storage';
import type { RelayMonitoringSettings, RelayMonitoringTargets } from './monitoring/types';
import { providerAckLimits } from './relay/providers';

export { PAGE_TAG, SERVICE_DEGRADED_TAG, TICKET_TAG } from './monitoring/kit';
export { POLL_CYCLES_COMPLETED_EXPRESSION } from './monitoring/polling';
export type { RelayMonitoringSettings, RelayMonitoringTargets } from './monitoring/types';
export {
  SILENT_PROVIDERS_METRIC,
  INGRESS_BUFFER_OFF_METRIC,
  SILENT_ACCOUNTS_METRIC,
  STATUS_CREDENTIAL_FAILURES_METRIC,
};

/**
 * Relay metrics (Powertools Metrics, namespace `metricsNamespace`) with an alarm on their roll-up (no
 * dimensions), one event or a spike: the ones an emitter writes only when it happens.
 */
export const ALARMED_RELAY_METRICS: readonly [
  typeof TRANSACTIONS_EXPIRED_METRIC,
  typeof VERIFICATION_DISAGREEMENTS_METRIC,
  typeof AMBIGUOUS_ESCALATED_METRIC,
  typeof CALLBACKS_REJECTED_METRIC,
  typeof INGRESS_BUFFER_OFF_METRIC,
  typeof REGISTRATION_EVENTS_REFUSED_METRIC,
] = [
  TRANSACTIONS_EXPIRED_METRIC,
  VERIFICATION_DISAGREEMENTS_METRIC,
  AMBIGUOUS_ESCALATED_METRIC,
  CALLBACKS_REJECTED_METRIC,
  INGRESS_BUFFER_OFF_METRIC,
  REGISTRATION_EVENTS_REFUSED_METRIC,
] as const;

/**
 * The longest limit a provider gives the relay to answer a callback (declared by the provider modules):
 * the callback p99 alarm is set against it.
 */
export const PROVIDER_ACK_LIMIT: Duration = Duration.millis(
  Math.max(...providerAckLimits().map((limit) => limit.ms)),
);

/**
 * The relay's dashboard and alarms, built with cdk-monitoring-constructs, one part per concern
 * (infra/monitoring/*). Two topics (docs/monitoring.md): **page** for what needs a person now, **ticket**
 * for what needs one in working hours; ALARM and OK go to the same one, and every library alarm carries
 * its route as a custom tag. One page per outage: `StorageOutage` (one alarm over the relay's own view
 * of the table) pages and suppresses `ServiceDegraded` (a composite over the serving alarms, which have
 * no action of their own); `EdgeOutage` pages once for the CloudFront edge. Each alarm metric bills
 * $0.10 a month, so a failure another alarm already pages for gets a graph, not an alarm of its own.
 */
export class RelayMonitoring extends Construct {
  readonly facade: MonitoringFacade;
  readonly dashboard: cloudwatch.Dashboard | undefined;
  /** The alarm that pages for a storage outage (and suppresses ServiceDegraded meanwhile). */
  readonly storageOutage: cloudwatch.Alarm;
  /** The composite alarm that pages once for the API, the acks, the poller heartbeat, the buffer age. */
  readonly serviceDegraded: cloudwatch.CompositeAlarm;
  /** The composite alarm that pages once for an edge outage (`cloudFront`), else undefined. */
  readonly edgeOutage: cloudwatch.CompositeAlarm | undefined;
  private readonly kit: MonitoringKit;

  constructor(
    scope: Construct,
    id: string,
    targets: RelayMonitoringTargets,
    settings: RelayMonitoringSettings,
  ) {
    super(scope, id);
    const kit = new MonitoringKit(this, settings);
    this.kit = kit;
    this.facade = kit.facade;
    this.dashboard = kit.dashboard;
    monitorApi(kit, targets);
    monitorAcks(kit, targets);
    monitorIngress(kit, targets);
    monitorFunctions(kit, targets);
    this.storageOutage = monitorStorage(kit, targets);
    monitorReconciliation(kit, targets);
    monitorSilence(kit, targets);
    this.serviceDegraded = serviceDegraded(kit, this.storageOutage);
    this.edgeOutage = targets.edge ? edgeOutage(kit, edgeAlarms(kit, targets.edge)) : undefined;
  }

  /** Every alarm created (the library's, then the ones made outside it and the composites). */
  get alarms(): cloudwatch.AlarmBase[] {
    return [...this.facade.createdAlarms().map((a) => a.alarm), ...this.kit.own];
  }
}

/**
 * Characters of the alarm name prefix: CloudWatch takes alarm names of 255 characters, and the longest
 * suffix an alarm adds is 57 (`-TransactionInitiatedDlq-Queue-Message-Count-Max-Critical`, from
 * cdk-monitoring-constructs); test/infra/scale.test.ts checks them with the longest stack name.
 */
const NAME_PREFIX_CHARS = 190;

/** Alarm and dashboard name prefix: the stack name and the construct path, safe characters only. */
export function monitoringNamePrefix(scope: Construct): string {
  const stack = Stack.of(scope);
  const path = scope.node.path.slice(stack.node.path.length).replace(/^\//, '');
  return `${stack.stackName}-${path}`.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, NAME_PREFIX_CHARS);
}

/**
 * The relay's metrics namespace unless `metricsNamespace` is set: `<base>/<stack name>/<construct
 * path in the stack>`, so two relays in one account (or one stack) never feed each other's alarms.
 * CloudWatch allows letters, digits and `.-_/#:` (at most 255 characters).
 */
export function defaultRelayNamespace(scope: Construct, base: string): string {
  const stack = Stack.of(scope);
  const path = scope.node.path.slice(stack.node.path.length).replace(/^\//, '');
  return `${base}/${stack.stackName}/${path}`.replace(/[^A-Za-z0-9._/#:-]/g, '-').slice(0, 255);
}
