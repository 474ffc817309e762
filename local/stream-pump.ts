import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  ResourceInUseException,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type ShardIteratorType,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { RelayLogger } from '../shared/app/ports';

const REDISCOVER_MS = 10_000;
const DEFAULT_BATCH_SIZE = 100;

type StreamLambda = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | undefined>;

/**
 * client-dynamodb-streams decodes an empty map attribute ({"M":{}}) as {}, which unmarshall rejects.
 * An attribute value with no type key can only have been an empty map, so put the M back.
 */
function repairEmptyMaps(value: unknown): unknown {
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

/**
 * Only records whose new image carries outbox events reach the publisher, as with the cloud's stream
 * filter: receipts, the most frequent writes, are skipped without being decoded.
 */
function carriesOutbox(record: _Record): boolean {
  const outbox = record.dynamodb?.NewImage?.outbox as { L?: unknown[] } | undefined;
  return Array.isArray(outbox?.L) && outbox.L.length > 0;
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
 * Where the pump remembers, per stream shard, the sequence number of the last record it published,
 * so that a restarted relay resumes after it instead of losing what was written but not yet published.
 */
export interface StreamCheckpointStore {
  /** Shard id → last published sequence number, for one stream. */
  load(streamArn: string): Promise<Map<string, string>>;
  save(streamArn: string, shardId: string, sequenceNumber: string): Promise<void>;
}

/** The table of the checkpoints, in the same DynamoDB Local as the relay table. */
const STREAM_CHECKPOINTS_TABLE = 'relay-local-stream-checkpoints';

/**
 * Checkpoints in a table of their own, next to the relay table in the same DynamoDB Local, keyed by
 * stream ARN and shard id. They live and die with the data they point into: in memory, both are gone
 * after a restart; with --data-dir, both are kept in the same files (no checkpoint file that could
 * outlive or disagree with its database). Not in the relay table itself: every checkpoint write would
 * be a stream record the pump reads back, and the cloud table (whose stream Lambda reads) must not
 * carry local-only items. The table has no stream.
 */
class DynamoCheckpointStore implements StreamCheckpointStore {
  private ready: Promise<void> | undefined;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName = STREAM_CHECKPOINTS_TABLE,
  ) {}

  private ensureTable(): Promise<void> {
    this.ready ??= (async () => {
      try {
        await this.client.send(
          new CreateTableCommand({
            TableName: this.tableName,
            AttributeDefinitions: [
              { AttributeName: 'streamArn', AttributeType: 'S' },
              { AttributeName: 'shardId', AttributeType: 'S' },
            ],
            KeySchema: [
              { AttributeName: 'streamArn', KeyType: 'HASH' },
              { AttributeName: 'shardId', KeyType: 'RANGE' },
            ],
            BillingMode: 'PAY_PER_REQUEST',
          }),
        );
      } catch (error) {
        if (!(error instanceof ResourceInUseException)) throw error;
      }
      await waitUntilTableExists({ client: this.client, maxWaitTime: 30 }, { TableName: this.tableName });
    })().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  async load(streamArn: string): Promise<Map<string, string>> {
    await this.ensureTable();
    const positions = new Map<string, string>();
    let startKey: Record<string, never> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'streamArn = :arn',
          ExpressionAttributeValues: { ':arn': { S: streamArn } },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const shard = item.shardId?.S;
        const sequence = item.sequenceNumber?.S;
        if (shard && sequence) positions.set(shard, sequence);
      }
      startKey = page.LastEvaluatedKey as Record<string, never> | undefined;
    } while (startKey);
    return positions;
  }

  async save(streamArn: string, shardId: string, sequenceNumber: string): Promise<void> {
    await this.ensureTable();
    await this.client.send(
      new PutItemCommand({
        TableName: this.tableName,
        Item: {
          streamArn: { S: streamArn },
          shardId: { S: shardId },
          sequenceNumber: { S: sequenceNumber },
          updatedAt: { S: new Date().toISOString() },
        },
      }),
    );
  }
}

export interface StreamPumpOptions {
  /** Where the pump keeps its position. @default DynamoCheckpointStore in the same DynamoDB Local */
  checkpoints?: StreamCheckpointStore;
  /** Records per GetRecords call, hence per publisher invocation. @default 100 (the cloud mapping's BatchSize) */
  batchSize?: number;
}

/**
 * The longest wait between two polls while nothing is written. Writes this process makes wake the pump
 * (wakeOnWrites), so they are read within the busy interval; this bounds how late a write from another
 * process (a script against the same table) is read. Polling an idle stream every 400 ms cost an idle
 * relay about 39 ms of CPU a second, 28 of them DynamoDB Local's (each GetRecords scans its stream store).
 */
export const IDLE_POLL_MS = 2_000;

export interface PollPace {
  /** The wait after a poll that read records, and after a wake(). */
  busyMs: number;
  /** The longest wait while polls read nothing. */
  idleMs: number;
}

/**
 * The wait before a stream poll: `busyMs` after a poll that read records, and doubling while polls read
 * nothing, up to `idleMs`. Polls cost CPU in the relay and in DynamoDB Local, and a relay is idle most
 * of its life.
 */
export function nextPollDelay(previousMs: number, read: number, { busyMs, idleMs }: PollPace): number {
  return read > 0 ? busyMs : Math.min(Math.max(previousMs, busyMs) * 2, idleMs);
}

/**
 * Runs `poll` on a timer, one poll at a time, at `pace` (nextPollDelay). wake() says something was just
 * written: the next poll comes within busyMs instead of the idle back-off; a wake during a poll (whose
 * read may have missed the write) makes the next wait busyMs too. Shared by the pump's own timer and
 * the test relays' driver (test/helpers/relay.ts).
 */
export class PollPacer {
  private delayMs: number;
  private timer: NodeJS.Timeout | undefined;
  private dueAt = 0;
  private polling = false;
  private woken = false;
  private stopped = true;
  private inFlight: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly poll: () => Promise<number>,
    private readonly pace: PollPace,
    /** A failed poll (the store unreachable) is paced like an empty one, after this is told. */
    private readonly failed: (error: unknown) => void = () => {},
  ) {
    this.delayMs = pace.busyMs;
  }

  start(): void {
    this.stopped = false;
    this.arm(this.delayMs);
  }

  wake(): void {
    if (this.stopped) return;
    if (this.polling) {
      this.woken = true;
      return;
    }
    if (this.timer && this.dueAt - Date.now() > this.pace.busyMs) {
      clearTimeout(this.timer);
      this.delayMs = this.pace.busyMs;
      this.arm(this.pace.busyMs);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
  }

  private arm(ms: number): void {
    this.dueAt = Date.now() + ms;
    this.timer = setTimeout(() => this.fire(), ms);
  }

  private fire(): void {
    this.timer = undefined;
    this.polling = true;
    this.woken = false;
    this.inFlight = this.poll()
      .catch((error: unknown) => {
        this.failed(error);
        return 0;
      })
      .then((read) => {
        this.polling = false;
        this.delayMs = this.woken ? this.pace.busyMs : nextPollDelay(this.delayMs, read, this.pace);
        if (!this.stopped) this.arm(this.delayMs);
      });
  }
}

/** The commands that write (the document client's and the low-level client's): a write wakes the pump. */
const WRITE_COMMAND =
  /^(Put|Update|Delete|BatchWrite|TransactWrite|ExecuteStatement|BatchExecuteStatement|ExecuteTransaction)/;

/** Errors that mean "this iterator or position is no longer readable; take a fresh one". */
const STALE_POSITION = new Set(['TrimmedDataAccessException', 'ExpiredIteratorException']);

/**
 * Reads the table's DynamoDB Local stream and invokes the outbox publisher with Lambda-shaped
 * batches, as the event source mapping does in the cloud. A failed batch is retried from the
 * failed record (at least once), like ReportBatchItemFailures.
 *
 * Position: after each published batch the pump checkpoints the shard's last sequence number; on
 * start it resumes AFTER_SEQUENCE_NUMBER of the checkpoint, and reads shards it has no (usable)
 * checkpoint for from TRIM_HORIZON. Never LATEST: records written before the pump started (a relay
 * killed between its acks and their publishing) are published, at least once (consumers dedupe
 * on metadata.id). A brand-new in-memory table has nothing before its horizon, so TRIM_HORIZON costs
 * nothing there; with --data-dir and no checkpoint (first run of this version) it may republish up
 * to the stream's 24 hours.
 */
export class LocalStreamPump {
  private readonly streams: DynamoDBStreamsClient;
  private readonly iterators = new Map<string, string>();
  private readonly finished = new Set<string>();
  /**
   * Last sequence number published per shard (loaded from the checkpoint at start): where a fresh
   * iterator starts when DynamoDB Local declares one trimmed or expired, and what is checkpointed.
   */
  private readonly lastRead = new Map<string, string>();
  private readonly checkpoints: StreamCheckpointStore;
  private readonly batchSize: number;
  private lastDiscovery = 0;
  /** Its own timer (start): intervalMs while records come, backing off to IDLE_POLL_MS while none do. */
  private readonly pacer: PollPacer;
  /** Who is told of each write this process makes (wakeOnWrites): the pacer, a test's driver. */
  private readonly wakers = new Set<() => void>();
  private streamArn = '';
  /** Polls run one at a time (timer and explicit drains share shard iterators). */
  private chain: Promise<unknown> = Promise.resolve();
  /**
   * When the latest pass that read every open shard to its end (no failed batch, no full page) began:
   * everything written to the table before that instant is published. `npm run sim` waits on it
   * (`GET /health`, `stream.caughtUpAt`) instead of guessing how long publishing takes.
   */
  caughtUpAt: string | undefined;
  /** Who else reads what the pump reads (the console's change feed): no second reader of the stream. */
  private readonly watchers = new Set<(records: readonly DynamoDBRecord[]) => void>();

  constructor(
    private readonly client: DynamoDBClient,
    endpoint: string,
    private readonly tableName: string,
    private readonly handler: StreamLambda,
    private readonly log: RelayLogger,
    private readonly intervalMs = 100,
    options: StreamPumpOptions = {},
  ) {
    this.streams = new DynamoDBStreamsClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    this.checkpoints = options.checkpoints ?? new DynamoCheckpointStore(client);
    this.batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.pacer = new PollPacer(
      () => this.poll(),
      { busyMs: intervalMs, idleMs: Math.max(intervalMs, IDLE_POLL_MS) },
      (error) => this.log.error('stream pump poll failed', { error }),
    );
  }

  async start(): Promise<void> {
    const table = await this.client.send(new DescribeTableCommand({ TableName: this.tableName }));
    this.streamArn = table.Table?.LatestStreamArn ?? '';
    if (!this.streamArn) throw new Error(`Table ${this.tableName} has no stream`);
    for (const [shard, sequence] of await this.checkpoints.load(this.streamArn))
      this.lastRead.set(shard, sequence);
    await this.discoverShards();
    this.wakers.add(() => this.pacer.wake());
    this.pacer.start();
  }

  /**
   * Wakes the pump whenever `client` (or the document client over it, which shares its middleware
   * stack) writes: a write this process makes is read within the busy interval, however long the
   * stream was idle. A read wakes nothing. Call it for every client of the relay that writes the table.
   */
  wakeOnWrites(client: Pick<DynamoDBClient, 'middlewareStack'>): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const output = await next(args);
        if (WRITE_COMMAND.test(context.commandName ?? '')) for (const wake of this.wakers) wake();
        return output;
      },
      { step: 'initialize', name: 'wakeStreamPumpOnWrites', override: true },
    );
  }

  /** Calls `wake` on every write wakeOnWrites sees (a driver pacing polls of its own); returns how to stop. */
  onWrite(wake: () => void): () => void {
    this.wakers.add(wake);
    return () => this.wakers.delete(wake);
  }

  /**
   * `watcher` sees every record the pump reads (a record may come again when its batch is retried), before
   * it is published: the console's one change feed for all its event streams, at no extra read. Returns
   * how to stop watching.
   */
  watch(watcher: (records: readonly DynamoDBRecord[]) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** Takes an iterator for every shard not read yet: after its checkpoint, else from its horizon. */
  private async discoverShards(): Promise<void> {
    this.lastDiscovery = Date.now();
    const description = await this.streams.send(new DescribeStreamCommand({ StreamArn: this.streamArn }));
    for (const shard of description.StreamDescription?.Shards ?? []) {
      const id = shard.ShardId!;
      if (this.iterators.has(id) || this.finished.has(id)) continue;
      const iterator = await this.freshIterator(id);
      if (iterator) this.iterators.set(id, iterator);
    }
  }

  /**
   * AFTER_SEQUENCE_NUMBER of the last published record when there is one, else TRIM_HORIZON; a
   * position DynamoDB Local no longer has (trimmed, or from another database) falls back to the horizon.
   */
  private async freshIterator(shardId: string): Promise<string | undefined> {
    const last = this.lastRead.get(shardId);
    const take = (type: ShardIteratorType, sequenceNumber?: string) =>
      this.streams.send(
        new GetShardIteratorCommand({
          StreamArn: this.streamArn,
          ShardId: shardId,
          ShardIteratorType: type,
          SequenceNumber: sequenceNumber,
        }),
      );
    if (last) {
      try {
        return (await take('AFTER_SEQUENCE_NUMBER', last)).ShardIterator;
      } catch (error) {
        // DynamoDB Local answered but refused the position (trimmed: TrimmedDataAccessException; unknown to
        // this stream: ValidationException, or InternalFailure past its end). A network error propagates.
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (!status) throw error;
        const name = (error as Error).name;
        this.log.warn('stream pump: checkpoint not readable, reading the shard from its horizon', {
          shardId,
          sequenceNumber: last,
          error: name,
        });
        this.lastRead.delete(shardId);
      }
    }
    return (await take('TRIM_HORIZON')).ShardIterator;
  }

  /** One pass over every open shard; also the way tests wait for publishing deterministically. */
  poll(): Promise<number> {
    const run = this.chain.then(() => this.pollOnce());
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async pollOnce(): Promise<number> {
    const began = new Date().toISOString();
    let published = 0;
    let drained = true;
    // DescribeStream is the costly call: repeat it only when a shard closed (its successor appears) or
    // now and then, not on every 100 ms poll.
    if (this.iterators.size === 0 || Date.now() - this.lastDiscovery > REDISCOVER_MS) {
      await this.discoverShards();
    }
    for (const [shardId, iterator] of [...this.iterators]) {
      const page = await this.getRecords(shardId, iterator);
      const records = page.Records ?? [];
      if (records.length >= this.batchSize) drained = false;
      let next = page.NextShardIterator;
      if (records.length && this.watchers.size) {
        const shaped = records.map((r) => toLambdaRecord(r, this.streamArn));
        for (const watcher of this.watchers) {
          try {
            watcher(shaped);
          } catch (error) {
            this.log.warn('stream pump: a watcher failed (publishing goes on)', { error });
          }
        }
      }
      if (records.length) {
        // The cloud's event source mapping filters the same way (OUTBOX_FILTER_PATTERN in infra).
        const carrying = records.filter(carriesOutbox);
        const result = carrying.length
          ? await this.handler({ Records: carrying.map((r) => toLambdaRecord(r, this.streamArn)) })
          : undefined;
        const failed = result?.batchItemFailures?.[0]?.itemIdentifier;
        // Everything before the first failed record was published.
        const failedAt = failed ? records.findIndex((r) => r.dynamodb?.SequenceNumber === failed) : -1;
        const done = failed ? records.slice(0, Math.max(failedAt, 0)) : records;
        const last = done.at(-1)?.dynamodb?.SequenceNumber;
        if (last) await this.checkpoint(shardId, last);
        if (failed) {
          drained = false;
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
    if (drained) this.caughtUpAt = began;
    return published;
  }

  /** Remembers the shard's position; a failed write only means those records may be published again. */
  private async checkpoint(shardId: string, sequenceNumber: string): Promise<void> {
    this.lastRead.set(shardId, sequenceNumber);
    try {
      await this.checkpoints.save(this.streamArn, shardId, sequenceNumber);
    } catch (error) {
      this.log.warn('stream pump: checkpoint not saved (those events may be published again)', {
        shardId,
        error,
      });
    }
  }

  /**
   * DynamoDB Local numbers stream records globally: an iterator taken on a still-empty shard is declared
   * trimmed (TrimmedDataAccessException) as soon as another table's stream gets records first (concurrent
   * test files). Re-position it after the last record read (or at the horizon when none was) and read again.
   */
  private async getRecords(shardId: string, iterator: string) {
    try {
      return await this.streams.send(
        new GetRecordsCommand({ ShardIterator: iterator, Limit: this.batchSize }),
      );
    } catch (error) {
      if (!STALE_POSITION.has((error as Error).name)) throw error;
      const fresh = await this.freshIterator(shardId);
      return this.streams.send(new GetRecordsCommand({ ShardIterator: fresh, Limit: this.batchSize }));
    }
  }

  /** Stops polling (no final pass: what was not published yet is published by the next start). */
  async stop(): Promise<void> {
    this.wakers.clear();
    await this.pacer.stop();
    await this.chain;
    this.streams.destroy();
  }
}
