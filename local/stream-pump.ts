import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { RelayLogger } from '../shared/domain/ports';

const REDISCOVER_MS = 10_000;

type StreamLambda = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | undefined>;

/**
 * client-dynamodb-streams decodes an empty map attribute ({"M":{}}) as {}, which unmarshall rejects.
 * An attribute value with no type key can only have been an empty map, so put the M back.
 */
export function repairEmptyMaps(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(repairEmptyMaps);
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return { M: {} };
  return Object.fromEntries(entries.map(([k, v]) => [k, k === 'M' ? repairImage(v) : repairEmptyMaps(v)]));
}

function repairImage(image: unknown): Record<string, unknown> | undefined {
  if (!image || typeof image !== 'object') return undefined;
  return Object.fromEntries(
    Object.entries(image as Record<string, unknown>).map(([k, v]) => [k, repairEmptyMaps(v)]),
  );
}

function toLambdaRecord(record: _Record, streamArn: string): DynamoDBRecord {
  const d = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventSource: 'aws:dynamodb',
    eventVersion: record.eventVersion,
    awsRegion: record.awsRegion,
    eventSourceARN: streamArn,
    dynamodb: {
      ApproximateCreationDateTime: d.ApproximateCreationDateTime
        ? d.ApproximateCreationDateTime.getTime() / 1000
        : undefined,
      Keys: d.Keys as never,
      NewImage: repairImage(d.NewImage) as never,
      OldImage: repairImage(d.OldImage) as never,
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType as never,
    },
  };
}

/**
 * Reads the table's DynamoDB Local stream and invokes the outbox publisher with Lambda-shaped
 * batches, as the event source mapping does in the cloud. A failed batch is retried from the
 * failed record (at least once), like ReportBatchItemFailures.
 */
export class LocalStreamPump {
  private readonly streams: DynamoDBStreamsClient;
  private readonly iterators = new Map<string, string>();
  private readonly finished = new Set<string>();
  /** Last sequence number read per shard, to re-position an iterator DynamoDB Local declares trimmed. */
  private readonly lastRead = new Map<string, string>();
  private lastDiscovery = 0;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private streamArn = '';
  /** Polls run one at a time (timer and explicit drains share shard iterators). */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: DynamoDBClient,
    endpoint: string,
    private readonly tableName: string,
    private readonly handler: StreamLambda,
    private readonly log: RelayLogger,
    private readonly intervalMs = 100,
  ) {
    this.streams = new DynamoDBStreamsClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  }

  async start(): Promise<void> {
    const table = await this.client.send(new DescribeTableCommand({ TableName: this.tableName }));
    this.streamArn = table.Table?.LatestStreamArn ?? '';
    if (!this.streamArn) throw new Error(`Table ${this.tableName} has no stream`);
    // Shards present at start are read from their end: what was written before this process started was
    // already published by the process that wrote it (persisted data directories).
    await this.discoverShards('LATEST');
    this.running = true;
    this.schedule();
  }

  private schedule(): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.poll()
        .catch((error) => this.log.error('stream pump poll failed', { error }))
        .finally(() => this.schedule());
    }, this.intervalMs);
  }

  private async discoverShards(position: 'LATEST' | 'TRIM_HORIZON'): Promise<void> {
    this.lastDiscovery = Date.now();
    const description = await this.streams.send(new DescribeStreamCommand({ StreamArn: this.streamArn }));
    for (const shard of description.StreamDescription?.Shards ?? []) {
      const id = shard.ShardId!;
      if (this.iterators.has(id) || this.finished.has(id)) continue;
      const iterator = await this.streams.send(
        new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: id, ShardIteratorType: position }),
      );
      if (iterator.ShardIterator) this.iterators.set(id, iterator.ShardIterator);
    }
  }

  /** One pass over every open shard; also the way tests wait for publishing deterministically. */
  poll(): Promise<number> {
    const run = this.chain.then(() => this.pollOnce());
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async pollOnce(): Promise<number> {
    let published = 0;
    // DescribeStream is the costly call: repeat it only when a shard closed (its successor appears) or
    // now and then, not on every 100 ms poll.
    if (this.iterators.size === 0 || Date.now() - this.lastDiscovery > REDISCOVER_MS) {
      await this.discoverShards('TRIM_HORIZON');
    }
    for (const [shardId, iterator] of [...this.iterators]) {
      const page = await this.getRecords(shardId, iterator);
      const records = page.Records ?? [];
      let next = page.NextShardIterator;
      if (records.length) {
        const result = await this.handler({ Records: records.map((r) => toLambdaRecord(r, this.streamArn)) });
        const failed = result?.batchItemFailures?.[0]?.itemIdentifier;
        if (failed) {
          // Re-read from the failed record next time.
          const retry = await this.streams.send(
            new GetShardIteratorCommand({
              StreamArn: this.streamArn,
              ShardId: shardId,
              ShardIteratorType: 'AT_SEQUENCE_NUMBER',
              SequenceNumber: failed,
            }),
          );
          next = retry.ShardIterator;
        } else {
          const last = records.at(-1)?.dynamodb?.SequenceNumber;
          if (last) this.lastRead.set(shardId, last);
        }
        published += records.length;
      }
      if (next) this.iterators.set(shardId, next);
      else {
        this.iterators.delete(shardId);
        this.finished.add(shardId);
        this.lastDiscovery = 0;
      }
    }
    return published;
  }

  /**
   * DynamoDB Local numbers stream records globally: an iterator taken on a still-empty shard is declared
   * trimmed (TrimmedDataAccessException) as soon as another table's stream gets records first (concurrent
   * test files). Re-position it after the last record read (or at the horizon when none was) and read again.
   */
  private async getRecords(shardId: string, iterator: string) {
    try {
      return await this.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 100 }));
    } catch (error) {
      if ((error as Error).name !== 'TrimmedDataAccessException') throw error;
      const last = this.lastRead.get(shardId);
      const fresh = await this.streams.send(
        new GetShardIteratorCommand({
          StreamArn: this.streamArn,
          ShardId: shardId,
          ...(last
            ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: last }
            : { ShardIteratorType: 'TRIM_HORIZON' as const }),
        }),
      );
      return this.streams.send(new GetRecordsCommand({ ShardIterator: fresh.ShardIterator, Limit: 100 }));
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    await this.chain;
    this.streams.destroy();
  }
}
