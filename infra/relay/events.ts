import { Duration, Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import { Construct } from 'constructs';
import { ConfigError } from '../../shared/domain/errors';
import type { RelayConfig } from '../../shared/config/schema';
import type { MobileMoneyRelayProps, RelaySubscriberOptions } from './props';

/** Actions a subscriber account may use on the relay bus for rules it created (EventBridge's documented policy). */
export const SUBSCRIBER_RULE_ACTIONS = [
  'events:PutRule',
  'events:DeleteRule',
  'events:DescribeRule',
  'events:DisableRule',
  'events:EnableRule',
  'events:PutTargets',
  'events:RemoveTargets',
  'events:ListTargetsByRule',
] as const;

export interface RelayEvents {
  readonly eventBus: events.IEventBus;
  readonly eventArchive: events.Archive | undefined;
}

/** The bus the relay publishes to, its replay archive, and the subscriber accounts' bus policy. */
export function createRelayEvents(
  scope: Construct,
  config: RelayConfig,
  props: Pick<
    MobileMoneyRelayProps,
    'eventBus' | 'eventArchive' | 'eventArchiveRetention' | 'subscriberAccounts'
  >,
): RelayEvents {
  const eventSource = config.events.source;
  const eventBus =
    props.eventBus ??
    new events.EventBus(scope, 'Bus', {
      eventBusName: config.events.busName === 'default' ? undefined : config.events.busName,
      description: 'Normalized mobile-money transaction events (mobile-money callback relay)',
    });
  const eventArchive =
    (props.eventArchive ?? true)
      ? new events.Archive(scope, 'EventArchive', {
          sourceEventBus: eventBus,
          eventPattern: { source: [eventSource] },
          retention: props.eventArchiveRetention ?? Duration.days(30),
          description: `Replay archive of ${eventSource} events`,
        })
      : undefined;
  if (props.subscriberAccounts?.length) {
    const stack = Stack.of(scope);
    // EventBridge's documented policy for rules other accounts create on this bus: each account
    // manages only the rules it created (events:creatorAccount), and only rules on the relay's events.
    new events.CfnEventBusPolicy(scope, 'SubscriberPolicy', {
      eventBusName: eventBus.eventBusName,
      statementId: 'RelaySubscriberAccountsManageTheirRules',
      statement: {
        Sid: 'RelaySubscriberAccountsManageTheirRules',
        Effect: 'Allow',
        Principal: {
          AWS: props.subscriberAccounts.map((account) =>
            stack.formatArn({ service: 'iam', region: '', account, resource: 'root' }),
          ),
        },
        Action: [...SUBSCRIBER_RULE_ACTIONS],
        Resource: stack.formatArn({
          service: 'events',
          resource: 'rule',
          resourceName: `${eventBus.eventBusName}/*`,
        }),
        Condition: {
          StringEqualsIfExists: {
            'events:creatorAccount': '${aws:PrincipalAccount}',
            'events:source': eventSource,
          },
        },
      },
    });
  }
  return { eventBus, eventArchive };
}

/** The rule `MobileMoneyRelay.addSubscriber` creates, under the relay's `Subscribers`. */
export function createSubscriberRule(
  relay: Construct,
  id: string,
  eventBus: events.IEventBus,
  eventSource: string,
  options: RelaySubscriberOptions,
): events.Rule {
  if (!options.detailTypes.length) {
    throw new ConfigError(`addSubscriber(${id}): detailTypes: name at least one event type`);
  }
  const data: Record<string, string[]> = {};
  if (options.providers?.length) data.provider = options.providers;
  if (options.accounts?.length) data.account = options.accounts;
  const subscribers = relay.node.tryFindChild('Subscribers') ?? new Construct(relay, 'Subscribers');
  return new events.Rule(subscribers, id, {
    eventBus,
    description: options.description ?? `Relay events (${options.detailTypes.join(', ')}) for ${id}`,
    eventPattern: {
      source: [eventSource],
      detailType: options.detailTypes,
      ...(Object.keys(data).length ? { detail: { data } } : {}),
    },
    targets: [options.target],
  });
}
