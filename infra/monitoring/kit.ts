import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import {
  type CustomMetricGroup,
  DefaultDashboardFactory,
  type IAlarmActionStrategy,
  MonitoringFacade,
  noopAction,
  SnsAlarmActionStrategy,
} from 'cdk-monitoring-constructs';
import type { Construct } from 'constructs';
import type { RelayMonitoringSettings } from './types';

/** Custom tags on every library alarm: where it goes (docs/monitoring.md). */
export const PAGE_TAG = 'page';
export const TICKET_TAG = 'ticket';
/**
 * Members of the `ServiceDegraded` composite (the API's 5xx, slow acks, the poller heartbeat, the buffer
 * age): no action of their own; the composite pages once, and not at all while `StorageOutage` is in
 * ALARM (they are its symptoms then).
 */
export const SERVICE_DEGRADED_TAG = 'service-degraded';

/** Appended to every ServiceDegraded member's description (they have no action of their own). */
export const DEGRADED_NOTE =
  ' No action of its own: ServiceDegraded pages, once, and not while StorageOutage is in ALARM.';

/** A metric or a math expression over metrics (what the facade graphs and alarms). */
export type GraphMetric = cloudwatch.Metric | cloudwatch.MathExpression;

/** Where an alarm goes: a topic, or the ServiceDegraded composite (no action of its own). */
export type Route = 'page' | 'ticket' | 'degraded';

/** One alarm, declared: what it reads, when it fires, where it goes and what the person should do. */
export interface AlarmSpec {
  /** The alarm's friendly name: `<prefix>-<group>-<name>-Critical` (raw alarms: `<prefix>-<name>`). */
  readonly name: string;
  readonly metric: GraphMetric;
  readonly threshold: number;
  /** @default '>=' */
  readonly comparison?: '>=' | '>' | '<';
  /** Datapoints that must breach out of the periods evaluated. @default [1, 1] */
  readonly persist?: readonly [datapoints: number, periods: number];
  /** @default NOT_BREACHING: most relay metrics are written only when something happens */
  readonly missing?: cloudwatch.TreatMissingData;
  readonly route: Route;
  readonly description: string;
}

/** A dashboard graph: its metrics, each alarmed when given as an AlarmSpec. */
export interface Graph {
  readonly title: string;
  readonly metrics: ReadonlyArray<GraphMetric | AlarmSpec>;
  readonly lines?: ReadonlyArray<{ readonly value: number; readonly label: string }>;
}

const COMPARISON = {
  '>=': cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  '>': cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
  '<': cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
} as const;

const isSpec = (m: GraphMetric | AlarmSpec): m is AlarmSpec => 'route' in m;

/**
 * What every monitoring part builds with: the cdk-monitoring-constructs facade (widgets and alarms on one
 * dashboard), the relay's metrics, and one way to declare an alarm (`AlarmSpec`) whatever the part.
 */
export class MonitoringKit {
  readonly facade: MonitoringFacade;
  readonly dashboard: cloudwatch.Dashboard | undefined;
  /** Alarms made outside the facade (Metrics Insights queries, composites), routed by `routeTo`. */
  readonly own: cloudwatch.AlarmBase[] = [];
  /** ServiceDegraded members made outside the facade (the facade's carry SERVICE_DEGRADED_TAG). */
  readonly degraded: cloudwatch.AlarmBase[] = [];
  private readonly ticket: SnsAlarmActionStrategy;

  constructor(
    readonly scope: Construct,
    readonly settings: RelayMonitoringSettings,
  ) {
    const page = new SnsAlarmActionStrategy({
      onAlarmTopic: settings.pageTopic,
      onOkTopic: settings.pageTopic,
    });
    this.ticket = new SnsAlarmActionStrategy({
      onAlarmTopic: settings.ticketTopic,
      onOkTopic: settings.ticketTopic,
    });
    const dashboards = new DefaultDashboardFactory(scope, 'Dashboards', {
      dashboardNamePrefix: settings.namePrefix,
      createDashboard: settings.dashboard,
      createSummaryDashboard: false,
      createAlarmDashboard: false,
    });
    this.facade = new MonitoringFacade(scope, 'Facade', {
      alarmFactoryDefaults: {
        alarmNamePrefix: settings.namePrefix,
        actionsEnabled: true,
        action: page,
        datapointsToAlarm: 1,
        evaluationPeriods: 1,
      },
      metricFactoryDefaults: { namespace: settings.metricsNamespace, period: Duration.minutes(1) },
      dashboardFactory: dashboards,
    });
    this.dashboard = dashboards.dashboard;
  }

  /** The facade's action and tag for a route (ALARM and OK go to the same place). */
  routing(route: Route): { actionOverride?: IAlarmActionStrategy; customTags: string[] } {
    if (route === 'page') return { customTags: [PAGE_TAG] };
    if (route === 'ticket') return { actionOverride: this.ticket, customTags: [TICKET_TAG] };
    return { actionOverride: noopAction(), customTags: [SERVICE_DEGRADED_TAG] };
  }

  /** A section of graphs on the dashboard; every AlarmSpec in it becomes an alarm. */
  graphs(alarmFriendlyName: string, humanReadableName: string, graphs: readonly Graph[]): void {
    this.facade.monitorCustom({
      alarmFriendlyName,
      humanReadableName,
      metricGroups: graphs.map((graph): CustomMetricGroup => ({
        title: graph.title,
        metrics: graph.metrics.map((m) => (isSpec(m) ? this.customAlarm(m) : m)),
        ...(graph.lines ? { horizontalAnnotations: [...graph.lines] } : {}),
      })),
    });
  }

  /** An alarm the facade cannot hold (a Metrics Insights query, or one named without a group). */
  alarm(id: string, spec: AlarmSpec): cloudwatch.Alarm {
    const [datapoints, periods] = spec.persist ?? [1, 1];
    const alarm = new cloudwatch.Alarm(this.scope, id, {
      alarmName: `${this.settings.namePrefix}-${spec.name}`,
      actionsEnabled: true,
      metric: spec.metric,
      threshold: spec.threshold,
      comparisonOperator: COMPARISON[spec.comparison ?? '>='],
      evaluationPeriods: periods,
      datapointsToAlarm: datapoints,
      treatMissingData: spec.missing ?? cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: spec.description + (spec.route === 'degraded' ? DEGRADED_NOTE : ''),
    });
    if (spec.route === 'degraded') this.degraded.push(alarm);
    else this.routeTo(alarm, spec.route === 'page' ? this.settings.pageTopic : this.settings.ticketTopic);
    return alarm;
  }

  /** ALARM and OK to one topic; kept in `own`. */
  routeTo(alarm: cloudwatch.AlarmBase, topic: sns.ITopic): void {
    alarm.addAlarmAction(new SnsAction(topic));
    alarm.addOkAction(new SnsAction(topic));
    this.own.push(alarm);
  }

  /** A relay metric's roll-up (no dimensions), as every alarm on it reads it. */
  relayMetric(
    metricName: string,
    statistic: string,
    period: Duration = Duration.minutes(1),
  ): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: this.settings.metricsNamespace,
      metricName,
      statistic,
      period,
      label: `${metricName} (${statistic})`,
    });
  }

  /** A relay metric's series for one set of dimension values (dashboard and per-provider alarms). */
  relayMetricBy(
    metricName: string,
    dimensionsMap: Record<string, string>,
    statistic: string,
    period: Duration = Duration.minutes(1),
  ): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: this.settings.metricsNamespace,
      metricName,
      dimensionsMap,
      statistic,
      period,
      label: Object.values(dimensionsMap).join('/'),
    });
  }

  private customAlarm(spec: AlarmSpec): CustomMetricGroup['metrics'][number] {
    const [datapoints, periods] = spec.persist ?? [1, 1];
    return {
      metric: spec.metric,
      alarmFriendlyName: spec.name,
      addAlarm: {
        Critical: {
          threshold: spec.threshold,
          comparisonOperator: COMPARISON[spec.comparison ?? '>='],
          datapointsToAlarm: datapoints,
          evaluationPeriods: periods,
          treatMissingDataOverride: spec.missing ?? cloudwatch.TreatMissingData.NOT_BREACHING,
          ...this.routing(spec.route),
          alarmDescriptionOverride: spec.description + (spec.route === 'degraded' ? DEGRADED_NOTE : ''),
        },
      },
    };
  }
}
