import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { MobileMoneyRelay, type MobileMoneyRelayProps } from './relay-construct';

export interface RelayStackProps extends StackProps {
  /** Everything the relay construct takes (config, alarm e-mail, retention, …). */
  readonly relay: MobileMoneyRelayProps;
}

/** One deployable relay: the construct plus the outputs people need after `cdk deploy`. */
export class RelayStack extends Stack {
  readonly relay: MobileMoneyRelay;

  constructor(scope: Construct, id: string, props: RelayStackProps) {
    super(scope, id, props);
    this.relay = new MobileMoneyRelay(this, 'Relay', props.relay);

    // In this order in the template: what a partner wires to, the queues an operator redrives, the bus
    // for replays and other accounts, the alarm topics and dashboard, then the public addresses.
    outputWiring(this, this.relay);
    outputQueues(this, this.relay);
    outputBus(this, this.relay);
    outputMonitoring(this, this.relay);
    outputPublicAddresses(this, this.relay);
  }
}

/** The API, the bus and the table a partner's services are configured with. */
function outputWiring(scope: Construct, relay: MobileMoneyRelay): void {
  new CfnOutput(scope, 'ApiUrl', {
    description: 'Base URL of the relay (set publicBaseUrl to it, or to your custom domain)',
    value: relay.apiUrl,
  });
  new CfnOutput(scope, 'EventBusName', {
    description: 'EventBridge bus carrying the normalized events',
    value: relay.eventBus.eventBusName,
  });
  new CfnOutput(scope, 'EventSource', {
    description: 'source of every relay event',
    value: relay.eventSource,
  });
  new CfnOutput(scope, 'TableName', {
    description: 'DynamoDB table (transactions, receipts, quarantine)',
    value: relay.table.tableName,
  });
}

/** The dead-letter queues, the poll schedule and the ingress buffer an operator watches and redrives. */
function outputQueues(scope: Construct, relay: MobileMoneyRelay): void {
  new CfnOutput(scope, 'OutboxDlqUrl', {
    description: 'Outbox publishing failures (stream batch pointers)',
    value: relay.outboxDlq.queueUrl,
  });
  new CfnOutput(scope, 'TransactionInitiatedDlqUrl', {
    description: 'TransactionInitiated events that could not be registered (replay them with put-events)',
    value: relay.transactionInitiatedDlq.queueUrl,
  });
  new CfnOutput(scope, 'PollScheduleName', {
    description: 'EventBridge Scheduler schedule of the reconciliation poller',
    value: relay.pollSchedule.scheduleName,
  });
  new CfnOutput(scope, 'IngressBufferQueueUrl', {
    description: 'Callbacks buffered while DynamoDB could not be written (applied by the buffer consumer)',
    value: relay.ingressBuffer.queueUrl,
  });
  new CfnOutput(scope, 'IngressBufferQueueArn', {
    description: 'Destination of a DLQ redrive (aws sqs start-message-move-task --destination-arn)',
    value: relay.ingressBuffer.queueArn,
  });
  new CfnOutput(scope, 'IngressBufferDlqUrl', {
    description:
      'Buffered callbacks that could not be applied (after the receives the 4-day retention allows)',
    value: relay.ingressBufferDlq.queueUrl,
  });
  new CfnOutput(scope, 'IngressBufferDlqArn', {
    description: 'Source of a DLQ redrive (aws sqs start-message-move-task --source-arn)',
    value: relay.ingressBufferDlq.queueArn,
  });
}

/** The bus and its archive, for rules in other accounts and for replays. */
function outputBus(scope: Construct, relay: MobileMoneyRelay): void {
  new CfnOutput(scope, 'EventBusArn', {
    description: 'ARN of the relay bus (cross-account rules, replay destination)',
    value: relay.eventBus.eventBusArn,
  });
  if (relay.eventArchive) {
    new CfnOutput(scope, 'EventArchiveArn', {
      description: 'Archive of the relay events (aws events start-replay --event-source-arn)',
      value: relay.eventArchive.archiveArn,
    });
  }
}

/** The alarm topics to subscribe people to, and the dashboard. */
function outputMonitoring(scope: Construct, relay: MobileMoneyRelay): void {
  new CfnOutput(scope, 'AlarmTopicArn', {
    description: 'Page topic: alarms that need a person now (subscribe on-call and the pager to it)',
    value: relay.alarmTopic.topicArn,
  });
  new CfnOutput(scope, 'TicketTopicArn', {
    description: 'Ticket topic: alarms for the next working day (subscribe the team queue to it)',
    value: relay.ticketTopic.topicArn,
  });
  if (relay.dashboard) {
    new CfnOutput(scope, 'DashboardName', {
      description: 'CloudWatch dashboard of the relay',
      value: relay.dashboard.dashboardName,
    });
  }
}

/** Where providers reach the relay when the CloudFront edge or a custom domain is in front. */
function outputPublicAddresses(scope: Construct, relay: MobileMoneyRelay): void {
  if (relay.distribution) {
    new CfnOutput(scope, 'EdgeDistributionDomainName', {
      description: 'The CloudFront edge in front of the provider callbacks (point your domain here)',
      value: relay.distribution.distributionDomainName,
    });
    new CfnOutput(scope, 'EdgeUrl', {
      description: 'Base URL of the provider callbacks through CloudFront and WAF (set publicBaseUrl to it)',
      value: relay.publicUrl,
    });
  }
  if (relay.domainName) {
    new CfnOutput(scope, 'PublicUrl', {
      description: 'Base URL on the custom domain (publicBaseUrl)',
      value: relay.publicUrl,
    });
    new CfnOutput(scope, 'CustomDomainTarget', {
      description: 'Point the custom domain here (CNAME) unless a hosted zone was given',
      value: relay.domainName.regionalDomainName,
    });
  }
}
