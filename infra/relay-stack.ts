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
    if (this.relay.alarmTopic) {
      new CfnOutput(this, 'AlarmTopicArn', {
        description: 'SNS topic of the relay alarms',
        value: this.relay.alarmTopic.topicArn,
      });
    }
  }
}
