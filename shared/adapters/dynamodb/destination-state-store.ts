import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type AttemptOutcome,
  type DestinationState,
  type DestinationStateStore,
  initialDestinationState,
  type SecretRotation,
} from '../../app/delivery/ports';

/**
 * Destination states in the relay table (docs/table-design.md, "Destination state"): one item
 * `DST#<destination>` / `STATE`, read by the management API and by every delivery path (npm start's engine,
 * the AWS delivery function). Updates are single-item expressions, so concurrent attempts count the
 * failure streak without losing one. Never expires: a pause outlives the retention.
 */
export class DynamoDestinationStateStore implements DestinationStateStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly options: { tableName: string },
  ) {}

  private key(destination: string) {
    return { pk: `DST#${destination}`, sk: 'STATE' };
  }

  async get(destination: string): Promise<DestinationState> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.options.tableName, Key: this.key(destination), ConsistentRead: true }),
    );
    if (!Item) return initialDestinationState(destination);
    const { pk: _pk, sk: _sk, ...state } = Item;
    return { ...initialDestinationState(destination), ...(state as Partial<DestinationState>) };
  }

  async recordAttempt(
    destination: string,
    attempt: { at: string; status: number | null; outcome: AttemptOutcome; failed: boolean },
  ): Promise<number> {
    const { Attributes } = await this.doc.send(
      new UpdateCommand({
        TableName: this.options.tableName,
        Key: this.key(destination),
        UpdateExpression: attempt.failed
          ? 'SET lastAttemptAt = :at, lastStatus = :status, lastOutcome = :outcome, destination = :d ADD consecutiveFailures :one'
          : 'SET lastAttemptAt = :at, lastStatus = :status, lastOutcome = :outcome, destination = :d, consecutiveFailures = :zero',
        ExpressionAttributeValues: {
          ':at': attempt.at,
          ':status': attempt.status,
          ':outcome': attempt.outcome,
          ':d': destination,
          ...(attempt.failed ? { ':one': 1 } : { ':zero': 0 }),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Number(Attributes?.consecutiveFailures ?? 0);
  }

  async disable(destination: string, reason: string, at: string): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: this.key(destination),
          UpdateExpression:
            'SET disabled = :yes, disabledReason = :reason, disabledAt = :at, destination = :d',
          ConditionExpression: 'attribute_not_exists(disabled) OR disabled = :no',
          ExpressionAttributeValues: {
            ':yes': true,
            ':no': false,
            ':reason': reason,
            ':at': at,
            ':d': destination,
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async pause(destination: string, actor: string, at: string): Promise<DestinationState> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.options.tableName,
        Key: this.key(destination),
        UpdateExpression: 'SET paused = :yes, pausedBy = :actor, pausedAt = :at, destination = :d',
        ExpressionAttributeValues: { ':yes': true, ':actor': actor, ':at': at, ':d': destination },
      }),
    );
    return this.get(destination);
  }

  async resume(destination: string): Promise<DestinationState> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.options.tableName,
        Key: this.key(destination),
        UpdateExpression:
          'SET paused = :no, disabled = :no, consecutiveFailures = :zero, destination = :d REMOVE pausedBy, pausedAt, disabledReason, disabledAt',
        ExpressionAttributeValues: { ':no': false, ':zero': 0, ':d': destination },
      }),
    );
    return this.get(destination);
  }

  async rotate(destination: string, rotation: SecretRotation): Promise<DestinationState> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.options.tableName,
        Key: this.key(destination),
        UpdateExpression: 'SET rotation = :rotation, destination = :d',
        ExpressionAttributeValues: { ':rotation': rotation, ':d': destination },
      }),
    );
    return this.get(destination);
  }
}
