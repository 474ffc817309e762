import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DestinationDisabledData } from '../../app/delivery/disabled-event';
import {
  type AttemptOutcome,
  type DestinationState,
  type DestinationStateStore,
  initialDestinationState,
  type SecretRotation,
} from '../../app/delivery/ports';
import type { EventEnvelope } from '../../domain/event-envelope';

/**
 * How long the AWS delivery function reuses a read state: a pause, a resume or a rotation made through the
 * management API reaches a warm function within this time. The management API and `npm start` read
 * through (cacheMs 0).
 */
export const DESTINATION_STATE_CACHE_MS = 5_000;

/** Item attributes that are the table's, not the state's. */
const NOT_STATE = new Set(['pk', 'sk', 'outbox', 'revision']);

/**
 * Destination states in the relay table (docs/table-design.md, "Destination state"): one item
 * `DST#<destination>` / `STATE`, the only one, written by the management API (pause, resume, rotation) and
 * by every delivery path (npm start's engine, the AWS delivery function), read before every attempt.
 * Updates are single-item expressions, so concurrent attempts count the failure streak without losing one.
 * Disabling writes the `DestinationDisabled` event into the item's `outbox` and moves its revision in one
 * conditional write: the table's stream publishes it through the outbox publisher once per disabling,
 * with the relay's event source. Every other write removes the outbox, so the stream filter never wakes
 * the publisher for them. Never expires: a pause outlives the retention.
 */
export class DynamoDestinationStateStore implements DestinationStateStore {
  private readonly known = new Map<string, { readAt: number; state: DestinationState; wroteAt: number }>();

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly options: { tableName: string; cacheMs?: number; now?: () => number },
  ) {}

  private key(destination: string) {
    return { pk: `DST#${destination}`, sk: 'STATE' };
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private remember(destination: string, item: Record<string, unknown> | undefined): DestinationState {
    const state = {
      ...initialDestinationState(destination),
      ...(Object.fromEntries(
        Object.entries(item ?? {}).filter(([name]) => !NOT_STATE.has(name)),
      ) as Partial<DestinationState>),
    };
    const wroteAt = this.known.get(destination)?.wroteAt ?? 0;
    if (this.options.cacheMs) this.known.set(destination, { readAt: this.now(), state, wroteAt });
    return state;
  }

  async get(destination: string): Promise<DestinationState> {
    const cached = this.known.get(destination);
    if (cached && this.now() - cached.readAt < (this.options.cacheMs ?? 0))
      return structuredClone(cached.state);
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.options.tableName, Key: this.key(destination), ConsistentRead: true }),
    );
    return this.remember(destination, Item);
  }

  private async update(
    destination: string,
    expression: string,
    values: Record<string, unknown>,
    condition?: string,
  ): Promise<DestinationState> {
    const { Attributes } = await this.doc.send(
      new UpdateCommand({
        TableName: this.options.tableName,
        Key: this.key(destination),
        UpdateExpression: expression,
        ...(condition ? { ConditionExpression: condition } : {}),
        ExpressionAttributeValues: { ...values, ':d': destination },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return this.remember(destination, Attributes);
  }

  async recordAttempt(
    destination: string,
    attempt: { at: string; status: number | null; outcome: AttemptOutcome; failed: boolean },
  ): Promise<number> {
    // With a cache (the AWS delivery function), a success after a success writes at most once per cache
    // period: most deliveries succeed, and the streak has nothing to reset (lastAttempt lags that much).
    const cached = this.known.get(destination);
    if (
      !attempt.failed &&
      cached &&
      cached.state.consecutiveFailures === 0 &&
      this.now() - cached.wroteAt < (this.options.cacheMs ?? 0)
    )
      return 0;
    const state = await this.update(
      destination,
      attempt.failed
        ? 'SET lastAttemptAt = :at, lastStatus = :status, lastOutcome = :outcome, destination = :d ADD consecutiveFailures :one REMOVE outbox'
        : 'SET lastAttemptAt = :at, lastStatus = :status, lastOutcome = :outcome, destination = :d, consecutiveFailures = :zero REMOVE outbox',
      {
        ':at': attempt.at,
        ':status': attempt.status,
        ':outcome': attempt.outcome,
        ...(attempt.failed ? { ':one': 1 } : { ':zero': 0 }),
      },
    );
    const known = this.known.get(destination);
    if (known) known.wroteAt = this.now();
    return state.consecutiveFailures;
  }

  async disable(destination: string, event: EventEnvelope<DestinationDisabledData>): Promise<boolean> {
    try {
      await this.update(
        destination,
        'SET disabled = :yes, disabledReason = :reason, disabledAt = :at, destination = :d, outbox = :outbox ADD revision :one',
        {
          ':yes': true,
          ':no': false,
          ':reason': event.data.detail,
          ':at': event.data.disabledAt,
          ':outbox': [event],
          ':one': 1,
        },
        'attribute_not_exists(disabled) OR disabled = :no',
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  pause(destination: string, actor: string, at: string): Promise<DestinationState> {
    return this.update(
      destination,
      'SET paused = :yes, pausedBy = :actor, pausedAt = :at, destination = :d REMOVE outbox',
      { ':yes': true, ':actor': actor, ':at': at },
    );
  }

  resume(destination: string): Promise<DestinationState> {
    return this.update(
      destination,
      'SET paused = :no, disabled = :no, consecutiveFailures = :zero, destination = :d REMOVE pausedBy, pausedAt, disabledReason, disabledAt, outbox',
      { ':no': false, ':zero': 0 },
    );
  }

  rotate(destination: string, rotation: SecretRotation): Promise<DestinationState> {
    return this.update(destination, 'SET rotation = :rotation, destination = :d REMOVE outbox', {
      ':rotation': rotation,
    });
  }
}
