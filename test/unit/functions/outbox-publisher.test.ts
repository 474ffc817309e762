import { marshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createOutboxPublisher } from '../../../functions/outbox-publisher/handler';
import { buildEvent, type EventEnvelope } from '../../../shared/domain/events';
import type { EventSink } from '../../../shared/app/ports';
import { silentLogger } from '../../helpers/relay';

const ctx = {} as Context;
const succeeded = buildEvent(
  'TransactionSucceeded',
  'momo:demo:a',
  'SUCCEEDED',
  'callback',
  '2026-11-21T10:00:00.000Z',
  {},
);
const conflict = buildEvent(
  'TransactionConflict',
  'momo:demo:a',
  'STATUS:SUCCEEDED:FAILED',
  'callback',
  '2026-11-21T10:01:00.000Z',
  {},
);

function record(
  seq: string,
  newImage: Record<string, unknown> | undefined,
  oldImage?: Record<string, unknown>,
): DynamoDBRecord {
  return {
    eventName: oldImage ? 'MODIFY' : 'INSERT',
    dynamodb: {
      SequenceNumber: seq,
      NewImage: newImage ? (marshall(newImage, { removeUndefinedValues: true }) as never) : undefined,
      OldImage: oldImage ? (marshall(oldImage) as never) : undefined,
    },
  };
}

class RecordingSink implements EventSink {
  published: EventEnvelope[][] = [];
  constructor(private readonly failOn?: string) {}
  async publish(events: readonly EventEnvelope[]) {
    if (events.some((e) => e.metadata.type === this.failOn)) throw new Error('bus down');
    this.published.push([...events]);
  }
}

describe('outbox publisher', () => {
  it('publishes the outbox of a write that moved the revision', async () => {
    const sink = new RecordingSink();
    const handler = createOutboxPublisher({ sink, log: silentLogger });
    const result = await handler(
      { Records: [record('1', { revision: 2, outbox: [succeeded] }, { revision: 1, outbox: [] })] },
      ctx,
    );
    expect(sink.published).toEqual([[atVersion(succeeded, 2)]]);
    expect(result.batchItemFailures).toEqual([]);
  });

  it('publishes nothing for receipts, empty outboxes and writes that kept the revision', async () => {
    const sink = new RecordingSink();
    const handler = createOutboxPublisher({ sink, log: silentLogger });
    const event: DynamoDBStreamEvent = {
      Records: [
        record('1', { itemType: 'receipt', deliveries: 2 }),
        record('2', { revision: 1, outbox: [] }),
        record('3', { revision: 3, outbox: [succeeded] }, { revision: 3, outbox: [succeeded] }),
        record('4', undefined, { revision: 3, outbox: [succeeded] }),
      ],
    };
    await handler(event, ctx);
    expect(sink.published).toEqual([]);
  });

  it('reports the first record whose events could not be published so Lambda retries from there', async () => {
    const sink = new RecordingSink('TransactionConflict');
    const handler = createOutboxPublisher({ sink, log: silentLogger });
    const result = await handler(
      {
        Records: [
          record('10', { revision: 2, outbox: [succeeded] }, { revision: 1 }),
          record('11', { revision: 3, outbox: [conflict] }, { revision: 2 }),
          record('12', { revision: 1, outbox: [succeeded] }),
        ],
      },
      ctx,
    );
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: '11' }]);
    expect(sink.published).toEqual([[atVersion(succeeded, 2)]]);
  });

  it('counts publishing failures in its metrics, not each publication', async () => {
    // Prepare
    const counts: Array<[string, number | undefined]> = [];
    const metrics = {
      count: (name: string, value?: number) => counts.push([name, value]),
      timing: () => {},
      flush: () => {},
    };
    const handler = createOutboxPublisher({
      sink: new RecordingSink('TransactionConflict'),
      log: silentLogger,
      metrics,
    });

    // Act
    await handler(
      {
        Records: [
          record('20', { revision: 2, outbox: [succeeded] }, { revision: 1 }),
          record('21', { revision: 3, outbox: [conflict] }, { revision: 2 }),
        ],
      },
      ctx,
    );

    // Assess
    // The publication that worked is counted by its log line (no metric series of its own).
    expect(counts).toEqual([['EventPublishFailures', 1]]);
  });
});

/** An event as the publisher sends it: stamped with the item's revision (metadata.stateVersion). */
function atVersion(event: EventEnvelope, stateVersion: number): EventEnvelope {
  return { ...event, metadata: { ...event.metadata, stateVersion } };
}
