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

    new CfnOutput(this, 'ApiUrl', {
      description: 'Base URL of the relay (set publicBaseUrl to it, or to your custom domain)',
      value: this.relay.apiUrl,
    });
    new CfnOutput(this, 'EventBusName', {
      description: 'EventBridge bus carrying the normalized events',
      value: this.relay.eventBus.eventBusName,
    });
    new CfnOutput(this, 'EventSource', {
      description: 'source of every relay event',
      value: this.relay.eventSource,
    });
    new CfnOutput(this, 'TableName', {
      description: 'DynamoDB table (transactions, receipts, quarantine)',
      value: this.relay.table.tableName,
    });
    new CfnOutput(this, 'OutboxDlqUrl', {
      description: 'Outbox publishing failures (stream batch pointers)',
      value: this.relay.outboxDlq.queueUrl,
    });
    new CfnOutput(this, 'TransactionInitiatedDlqUrl', {
      description: 'TransactionInitiated events that could not be registered (replay them with put-events)',
      value: this.relay.transactionInitiatedDlq.queueUrl,
    });
    new CfnOutput(this, 'PollScheduleName', {
      description: 'EventBridge Scheduler schedule of the reconciliation poller',
      value: this.relay.pollSchedule.scheduleName,
    });
    new CfnOutput(this, 'IngressBufferQueueUrl', {
      description: 'Callbacks buffered while DynamoDB could not be written (applied by the buffer consumer)',
      value: this.relay.ingressBuffer.queueUrl,
    });
    new CfnOutput(this, 'IngressBufferQueueArn', {
      description: 'Destination of a DLQ redrive (aws sqs start-message-move-task --destination-arn)',
      value: this.relay.ingressBuffer.queueArn,
    });
    new CfnOutput(this, 'IngressBufferDlqUrl', {
      description:
        'Buffered callbacks that could not be applied (after the receives the 4-day retention allows)',
      value: this.relay.ingressBufferDlq.queueUrl,
    });
    new CfnOutput(this, 'IngressBufferDlqArn', {
      description: 'Source of a DLQ redrive (aws sqs start-message-move-task --source-arn)',
      value: this.relay.ingressBufferDlq.queueArn,
    });
    new CfnOutput(this, 'EventBusArn', {
      description: 'ARN of the relay bus (cross-account rules, replay destination)',
      value: this.relay.eventBus.eventBusArn,
    });
    if (this.relay.eventArchive) {
      new CfnOutput(this, 'EventArchiveArn', {
        description: 'Archive of the relay events (aws events start-replay --event-source-arn)',
        value: this.relay.eventArchive.archiveArn,
      });
    }
    new CfnOutput(this, 'AlarmTopicArn', {
      description: 'Page topic: alarms that need a person now (subscribe on-call and the pager to it)',
      value: this.relay.alarmTopic.topicArn,
    });
    new CfnOutput(this, 'TicketTopicArn', {
      description: 'Ticket topic: alarms for the next working day (subscribe the team queue to it)',
      value: this.relay.ticketTopic.topicArn,
    });
    if (this.relay.dashboard) {
      new CfnOutput(this, 'DashboardName', {
        description: 'CloudWatch dashboard of the relay',
        value: this.relay.dashboard.dashboardName,
      });
    }
    if (this.relay.distribution) {
      new CfnOutput(this, 'EdgeDistributionDomainName', {
        description: 'The CloudFront edge in front of the provider callbacks (point your domain here)',
        value: this.relay.distribution.distributionDomainName,
      });
      new CfnOutput(this, 'EdgeUrl', {
        description:
          'Base URL of the provider callbacks through CloudFront and WAF (set publicBaseUrl to it)',
        value: this.relay.publicUrl,
      });
    }
    if (this.relay.domainName) {
      new CfnOutput(this, 'PublicUrl', {
        description: 'Base URL on the custom domain (publicBaseUrl)',
        value: this.relay.publicUrl,
      });
      new CfnOutput(this, 'CustomDomainTarget', {
        description: 'Point the custom domain here (CNAME) unless a hosted zone was given',
        value: this.relay.domainName.regionalDomainName,
      });
    }
  }
}
