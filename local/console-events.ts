import type { IncomingMessage, ServerResponse } from 'node:http';
import { EVENT_STREAM_HEARTBEAT_MS, type TransactionSummary } from '../shared/app/management-answers';
import type { RelayConfig } from '../shared/config/schema';
import { RelayError, TooManyStreamsError } from '../shared/domain/errors';
import { errorResponse } from '../shared/http/error-mapping';
import { checkBearer } from '../shared/http/management-router';
import { API_ANSWER_HEADERS } from '../shared/http/types';

const EVENTS_STREAM_PATH = '/v1/events/stream';
/** Comment lines keep idle connections (and proxies in between) open, and tell the console it is live. */
const HEARTBEAT_MS = EVENT_STREAM_HEARTBEAT_MS;
/**
 * Event streams open at once, at most (docs/console.md#live-updates): one more is answered 429
 * TOO_MANY_STREAMS, and the console polls the list instead.
 */
export const MAX_EVENT_STREAMS = 32;
/** Changes kept for a reconnecting stream (`Last-Event-ID`): older ones it reads from the list. */
const REPLAY_CHANGES = 500;
/** What one stream may owe its client: past it the stream is closed (the client reconnects or polls). */
const MAX_UNSENT_BYTES = 1024 * 1024;
/** Seconds a refused console is told to wait before it asks again. */
const RETRY_AFTER_SECONDS = 30;

type Listener = (change: TransactionSummary) => void;

/**
 * The one change feed of a process for all its event streams: what the stream pump reads from the
 * table's stream anyway is fanned out to every open stream, so N open consoles cost N writes to sockets
 * and no read of the store (each stream used to poll a day of transactions every second). It keeps the
 * last `replay` changes for streams that reconnect, and serves at most `maxStreams` at once.
 */
export class TransactionChangeFeed {
  private readonly listeners = new Set<Listener>();
  /** Oldest first; the ids beside it so that a batch the pump reads again is not sent twice. */
  private readonly recent: TransactionSummary[] = [];
  private readonly recentIds = new Set<string>();

  constructor(
    readonly maxStreams = MAX_EVENT_STREAMS,
    private readonly replay = REPLAY_CHANGES,
  ) {}

  get streams(): number {
    return this.listeners.size;
  }

  /** Adds a stream; throws TooManyStreamsError when `maxStreams` are open. Returns how to remove it. */
  subscribe(listener: Listener): () => void {
    if (this.listeners.size >= this.maxStreams)
      throw new TooManyStreamsError(
        `${this.maxStreams} event streams are open, the most this relay serves at once; poll GET /v1/transactions?since= or retry later`,
        { details: { maxStreams: this.maxStreams } },
      );
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The kept changes at or after `since`, oldest first (what a reconnecting stream missed). */
  changesSince(since: string): TransactionSummary[] {
    return this.recent.filter((change) => change.updatedAt >= since);
  }

  /** One changed transaction, to every open stream (once, however often the pump reads it). */
  publish(change: TransactionSummary): void {
    const id = idOf(change);
    if (this.recentIds.has(id)) return;
    this.recent.push(change);
    this.recentIds.add(id);
    while (this.recent.length > this.replay) this.recentIds.delete(idOf(this.recent.shift()!));
    for (const listener of this.listeners) listener(change);
  }
}

const idOf = (t: TransactionSummary) => `${t.provider}/${t.account}/${t.reference}@${t.updatedAt}`;

/**
 * GET /v1/events/stream under `npm start` only (API Gateway HTTP APIs cannot stream; the console polls
 * `GET /v1/transactions?since=` there): Server-Sent Events, one `transaction` event with a
 * TransactionSummary each time a transaction is created or changes, from the process's one change feed.
 * Authorized like the management API; `?access_token=` stands in for the header, because a browser's
 * EventSource cannot send one (local only: the cloud console never streams). A reconnecting client's
 * `Last-Event-ID` replays the kept changes since then.
 */
export function consoleEventStream(deps: {
  config: RelayConfig;
  feed: TransactionChangeFeed;
  /** Records a refused request where the management routes record theirs (the audit log). */
  refused?: (request: IncomingMessage, error: RelayError) => Promise<void>;
}): (path: string, request: IncomingMessage, response: ServerResponse) => Promise<boolean> {
  return async (path, request, response) => {
    if (path !== EVENTS_STREAM_PATH || request.method !== 'GET') return false;
    const url = new URL(request.url ?? '/', 'http://localhost');
    const token = url.searchParams.get('access_token');
    const headers = { authorization: token ? `Bearer ${token}` : (request.headers.authorization ?? '') };
    const lastEventId = request.headers['last-event-id'];
    const since =
      typeof lastEventId === 'string' && !Number.isNaN(Date.parse(lastEventId)) ? lastEventId : undefined;
    const send = (change: TransactionSummary) => {
      response.write(`event: transaction\nid: ${change.updatedAt}\ndata: ${JSON.stringify(change)}\n\n`);
      // A client that does not read must not make the relay hold its changes without bound.
      if (response.writableLength > MAX_UNSENT_BYTES) response.destroy();
    };
    let unsubscribe: () => void;
    try {
      checkBearer(deps.config, { headers });
      unsubscribe = deps.feed.subscribe(send);
    } catch (error) {
      if (!(error instanceof RelayError)) throw error;
      // A wrong token leaves a trace; a full house of genuine consoles is no attempt.
      if (!(error instanceof TooManyStreamsError)) await deps.refused?.(request, error);
      const answer = errorResponse(error);
      response.writeHead(answer.statusCode, {
        ...API_ANSWER_HEADERS,
        ...answer.headers,
        ...(error instanceof TooManyStreamsError ? { 'retry-after': String(RETRY_AFTER_SECONDS) } : {}),
      });
      response.end(JSON.stringify(answer.body));
      return true;
    }
    response.writeHead(200, {
      ...API_ANSWER_HEADERS,
      'content-type': 'text/event-stream',
      connection: 'keep-alive',
    });
    response.write(': connected\n\n');
    // What a reconnecting client missed, before anything newer (nothing is published in between).
    if (since) for (const change of deps.feed.changesSince(since)) send(change);
    const heartbeat = setInterval(() => response.write(': heartbeat\n\n'), HEARTBEAT_MS);
    response.on('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
    });
    return true;
  };
}
