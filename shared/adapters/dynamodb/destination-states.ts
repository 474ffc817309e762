import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DestinationDisabledData } from '../../app/delivery/disabled-event';
import type { DestinationStates } from '../../app/delivery/ports';
import type { EventEnvelope } from '../../domain/event-envelope';

/** How long a read state is reused by a warm function: a resume or a disabling elsewhere shows within it. */
export const DESTINATION_STATE_CACHE_MS = 5_000;

const keyOf = (destination: string) => ({ pk: `DLVDST#${destination}`, sk: 'STATE' });

/**
 * Each webhook destination's state in the relay table (docs/table-design.md, `DLVDST#<destination>`),
 * shared by every concurrent delivery function: the consecutive failures (an atomic counter) and whether
 * it is disabled. Disabling writes the `DestinationDisabled` event into the item's `outbox` and moves its
 * revision, in one conditional write: the table's stream publishes it through the outbox publisher, once
 * per disabling, with the relay's event source (no other role may put relay events on the bus). Every
 * other write removes the outbox, so the stream filter never wakes the publisher for them.
 */
export class DynamoDestinationStates implements DestinationStates {
  private readonly known = new Map<
    string,
    { at: number; disabled: boolean; reason?: string; failures: number }
  >();

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly options: { tableName: string; now?: () => number; cacheMs?: number },
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  async get(destination: string): Promise<{ disabled: boolean; reason?: string }> {
    const cached = this.known.get(destination);
    if (!cached || this.now() - cached.at >= (this.options.cacheMs ?? DESTINATION_STATE_CACHE_MS)) {
      const { Item } = await this.doc.send(
        new GetCommand({ TableName: this.options.tableName, Key: keyOf(destination) }),
      );
      this.known.set(destination, {
        at: this.now(),
        disabled: Item?.disabled === true,
        ...(typeof Item?.disabledReason === 'string' ? { reason: Item.disabledReason } : {}),
        failures: typeof Item?.consecutiveFailures === 'number' ? Item.consecutiveFailures : 0,
      });
    }
    const { disabled, reason } = this.known.get(destination)!;
    return reason === undefined ? { disabled } : { disabled, reason };
  }

  async succeeded(destination: string): Promise<void> {
    // Most deliveries follow a success: no write then (the state read says there is nothing to reset).
    if (this.known.get(destination)?.failures === 0) return;
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: keyOf(destination),
          UpdateExpression: 'SET consecutiveFailures = :zero REMOVE outbox',
          ConditionExpression: 'consecutiveFailures > :zero',
          ExpressionAttributeValues: { ':zero': 0 },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    const cached = this.known.get(destination);
    if (cached) cached.failures = 0;
  }

  async failed(destination: string): Promise<number> {
    const { Attributes } = await this.doc.send(
      new UpdateCommand({
        TableName: this.options.tableName,
        Key: keyOf(destination),
        UpdateExpression: 'ADD consecutiveFailures :one REMOVE outbox',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const failures = Number(Attributes?.consecutiveFailures ?? 1);
    const cached = this.known.get(destination);
    if (cached) cached.failures = failures;
    return failures;
  }

  async disable(destination: string, event: EventEnvelope<DestinationDisabledData>): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: keyOf(destination),
          UpdateExpression:
            'SET disabled = :true, disabledReason = :reason, disabledAt = :at, outbox = :outbox ADD revision :one',
          ConditionExpression: 'attribute_not_exists(disabled) OR disabled = :false',
          ExpressionAttributeValues: {
            ':true': true,
            ':false': false,
            ':reason': event.data.detail,
            ':at': event.data.disabledAt,
            ':outbox': [event],
            ':one': 1,
          },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
    this.known.set(destination, { at: this.now(), disabled: true, reason: event.data.detail, failures: 0 });
    return true;
  }

  /** Re-enables a destination (an operator's decision): failures from 0, no outbox. */
  async resume(destination: string): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.options.tableName,
        Key: keyOf(destination),
        UpdateExpression:
          'SET disabled = :false, consecutiveFailures = :zero REMOVE disabledReason, disabledAt, outbox',
        ExpressionAttributeValues: { ':false': false, ':zero': 0 },
      }),
    );
    this.known.delete(destination);
  }
}
