import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { SchemaValidationError } from '../../domain/errors';
import {
  type DeliveredEvent,
  type DeliveryAttempt,
  type DeliveryAttemptPage,
  type DeliveryLog,
  type DestinationAttemptQuery,
  type DeliverySelector,
  MAX_SELECTOR_DAYS,
  type ReplayAudit,
} from '../../app/delivery/ports';
import { matchesSelector } from '../memory/delivery-log';

const DAY_SECONDS = 86_400;

/**
 * The webhook delivery log in the relay table (docs/table-design.md, "Delivery …" items): a transaction's
 * delivered events and every attempt under one partition `DLV#<correlationId>` (its story is one Query),
 * a day partition of event keys for replays by time range or type, a copy of each attempt in its
 * destination's day partition `DLVDST#<destination>#<day>` (the destination's log, read a bounded page at a
 * time) and each replay's audit entry. Items expire with the transaction retention.
 */
export class DynamoDeliveryLog implements DeliveryLog {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly options: { tableName: string; retentionDays: number },
  ) {}

  private expiresAt(iso: string): number {
    return Math.floor(Date.parse(iso) / 1000) + this.options.retentionDays * DAY_SECONDS;
  }

  async recordEvent(event: DeliveredEvent): Promise<void> {
    const expiresAt = this.expiresAt(event.occurredAt);
    await this.doc.send(
      new PutCommand({
        TableName: this.options.tableName,
        Item: { pk: `DLV#${event.correlationId}`, sk: `EVENT#${event.eventId}`, ...event, expiresAt },
      }),
    );
    await this.doc.send(
      new PutCommand({
        TableName: this.options.tableName,
        Item: {
          pk: `DLVDAY#${event.occurredAt.slice(0, 10)}`,
          sk: `${event.occurredAt}#${event.eventId}`,
          correlationId: event.correlationId,
          eventId: event.eventId,
          eventType: event.eventType,
          expiresAt,
        },
      }),
    );
  }

  async recordAttempt(attempt: DeliveryAttempt): Promise<void> {
    const n = String(attempt.attempt).padStart(3, '0');
    await this.doc.send(
      new PutCommand({
        TableName: this.options.tableName,
        Item: {
          pk: `DLV#${attempt.correlationId}`,
          sk: `ATT#${attempt.eventId}#${attempt.destination}#${attempt.at}#${n}`,
          ...attempt,
          expiresAt: this.expiresAt(attempt.at),
        },
      }),
    );
    // The dead-letter store: one more item per dead letter, so a destination's are one Query.
    if (attempt.outcome === 'dead-letter')
      await this.doc.send(
        new PutCommand({
          TableName: this.options.tableName,
          Item: {
            pk: `DLVDEAD#${attempt.destination}`,
            sk: `${attempt.at}#${attempt.eventId}`,
            ...attempt,
            expiresAt: this.expiresAt(attempt.at),
          },
        }),
      );
    await this.doc.send(
      new PutCommand({
        TableName: this.options.tableName,
        Item: {
          pk: `DLVDST#${attempt.destination}#${attempt.at.slice(0, 10)}`,
          sk: `${attempt.at}#${attempt.eventId}#${n}`,
          ...attempt,
          expiresAt: this.expiresAt(attempt.at),
        },
      }),
    );
  }

  async deadLetters(
    destination: string,
    options: { from?: string; limit?: number } = {},
  ): Promise<DeliveryAttempt[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.options.tableName,
          KeyConditionExpression: options.from === undefined ? 'pk = :pk' : 'pk = :pk AND sk >= :from',
          ExpressionAttributeValues: {
            ':pk': `DLVDEAD#${destination}`,
            ...(options.from === undefined ? {} : { ':from': options.from }),
          },
          ExclusiveStartKey: start,
          ...(options.limit !== undefined ? { Limit: options.limit - items.length } : {}),
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start && (options.limit === undefined || items.length < options.limit));
    return items.map(
      ({ pk: _pk, sk: _sk, expiresAt: _e, ...attempt }) => attempt as unknown as DeliveryAttempt,
    );
  }

  async attemptsOf(destination: string, query: DestinationAttemptQuery): Promise<DeliveryAttemptPage> {
    const days = daysBetween(query.from, query.to).reverse();
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const first = cursor ? days.indexOf(cursor.day) : 0;
    if (first < 0)
      throw new SchemaValidationError('cursor: not from this range', { details: { parameter: 'cursor' } });
    const attempts: DeliveryAttempt[] = [];
    for (let d = first; d < days.length; d++) {
      let start = d === first ? cursor?.key : undefined;
      do {
        const page = await this.doc.send(
          new QueryCommand({
            TableName: this.options.tableName,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ...(query.outcome ? { FilterExpression: 'outcome = :outcome' } : {}),
            ExpressionAttributeValues: {
              ':pk': `DLVDST#${destination}#${days[d]}`,
              ':from': query.from,
              ':to': `${query.to}~`,
              ...(query.outcome ? { ':outcome': query.outcome } : {}),
            },
            ScanIndexForward: false,
            Limit: query.limit - attempts.length,
            ExclusiveStartKey: start,
          }),
        );
        for (const { pk: _pk, sk: _sk, expiresAt: _e, ...attempt } of page.Items ?? [])
          attempts.push(attempt as unknown as DeliveryAttempt);
        start = page.LastEvaluatedKey;
        if (attempts.length >= query.limit) {
          const next = start
            ? encodeCursor({ day: days[d]!, key: start })
            : d + 1 < days.length
              ? encodeCursor({ day: days[d + 1]! })
              : undefined;
          return { attempts, ...(next ? { next } : {}) };
        }
      } while (start);
    }
    return { attempts };
  }

  async attempts(filter: {
    correlationId: string;
    eventId?: string;
    destination?: string;
  }): Promise<DeliveryAttempt[]> {
    const prefix = `ATT#${filter.eventId !== undefined ? `${filter.eventId}#${filter.destination !== undefined ? `${filter.destination}#` : ''}` : ''}`;
    const items = await this.queryAll({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `DLV#${filter.correlationId}`, ':prefix': prefix },
    });
    return items
      .map(({ pk: _pk, sk: _sk, expiresAt: _e, ...attempt }) => attempt as unknown as DeliveryAttempt)
      .filter((a) => filter.destination === undefined || a.destination === filter.destination)
      .sort((a, b) => a.at.localeCompare(b.at) || a.attempt - b.attempt);
  }

  async events(selector: DeliverySelector): Promise<DeliveredEvent[]> {
    if (selector.correlationId !== undefined) {
      const items = await this.queryAll({
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `DLV#${selector.correlationId}`, ':prefix': 'EVENT#' },
      });
      return items
        .map(({ pk: _pk, sk: _sk, expiresAt: _e, ...event }) => event as unknown as DeliveredEvent)
        .filter((event) => matchesSelector(event, selector))
        .sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
    }
    if (selector.from === undefined || selector.to === undefined)
      throw new Error('a delivery selector names a transaction or a time range (from and to)');
    const days = daysBetween(selector.from, selector.to);
    const keys: { correlationId: string; eventId: string }[] = [];
    for (const day of days) {
      const items = await this.queryAll({
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': `DLVDAY#${day}`,
          ':from': selector.from,
          ':to': `${selector.to}~`,
        },
      });
      for (const item of items)
        if (selector.eventType === undefined || item.eventType === selector.eventType)
          keys.push({ correlationId: item.correlationId as string, eventId: item.eventId as string });
    }
    const events: DeliveredEvent[] = [];
    for (const key of keys) {
      const { Item } = await this.doc.send(
        new GetCommand({
          TableName: this.options.tableName,
          Key: { pk: `DLV#${key.correlationId}`, sk: `EVENT#${key.eventId}` },
        }),
      );
      if (Item) {
        const { pk: _pk, sk: _sk, expiresAt: _e, ...event } = Item;
        events.push(event as DeliveredEvent);
      }
    }
    return events.filter((event) => matchesSelector(event, selector));
  }

  async recordReplay(audit: ReplayAudit): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.options.tableName,
        Item: {
          pk: `DLVREPLAY#${audit.destination}`,
          sk: `${audit.at}#${randomUUID()}`,
          ...audit,
          expiresAt: this.expiresAt(audit.at),
        },
      }),
    );
  }

  private async queryAll(input: {
    KeyConditionExpression: string;
    ExpressionAttributeValues: Record<string, unknown>;
  }): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({ TableName: this.options.tableName, ...input, ExclusiveStartKey: start }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  }
}

interface AttemptCursor {
  day: string;
  key?: Record<string, unknown>;
}

function encodeCursor(cursor: AttemptCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(text: string): AttemptCursor {
  try {
    const cursor = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as AttemptCursor;
    if (typeof cursor.day === 'string') return cursor;
  } catch {
    // answered below
  }
  throw new SchemaValidationError('cursor: not a cursor this API gave', { details: { parameter: 'cursor' } });
}

/** The UTC days a range touches, at most MAX_SELECTOR_DAYS. */
function daysBetween(from: string, to: string): string[] {
  const start = Date.parse(from.slice(0, 10));
  const end = Date.parse(to.slice(0, 10));
  if (Number.isNaN(start) || Number.isNaN(end) || end < start)
    throw new Error('a delivery selector time range needs ISO times, from before to');
  const days: string[] = [];
  for (let day = start; day <= end; day += DAY_SECONDS * 1000)
    days.push(new Date(day).toISOString().slice(0, 10));
  if (days.length > MAX_SELECTOR_DAYS)
    throw new Error(`a delivery selector spans at most ${MAX_SELECTOR_DAYS} days`);
  return days;
}
