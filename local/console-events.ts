import type { IncomingMessage, ServerResponse } from 'node:http';
import { listTransactions, type ConsoleDeps } from '../shared/app/console/list-transactions';
import { RelayError } from '../shared/domain/errors';
import { errorResponse } from '../shared/http/error-mapping';
import { checkBearer } from '../shared/http/management-router';
import { API_ANSWER_HEADERS } from '../shared/http/types';

export const EVENTS_STREAM_PATH = '/v1/events/stream';
/** Comment lines keep idle connections (and proxies in between) open. */
const HEARTBEAT_MS = 15_000;

/**
 * GET /v1/events/stream under `npm start` only (API Gateway HTTP APIs cannot stream; the console polls
 * `GET /v1/transactions?since=` there): Server-Sent Events, one `transaction` event with a
 * TransactionSummary each time a transaction is created or changes. It polls the same use case the
 * polling console calls, every `intervalMs`, so it shows what the list shows. Authorized like the
 * management API; `?access_token=` stands in for the header, because a browser's EventSource cannot send
 * one (local only: the cloud console never streams).
 */
export function consoleEventStream(
  deps: ConsoleDeps & {
    /** Records a refused request where the management routes record theirs (the quarantine). */
    refused?: (request: IncomingMessage, error: RelayError) => Promise<void>;
  },
  intervalMs = 1000,
): (path: string, request: IncomingMessage, response: ServerResponse) => Promise<boolean> {
  return async (path, request, response) => {
    if (path !== EVENTS_STREAM_PATH || request.method !== 'GET') return false;
    const url = new URL(request.url ?? '/', 'http://localhost');
    const token = url.searchParams.get('access_token');
    const headers = { authorization: token ? `Bearer ${token}` : (request.headers.authorization ?? '') };
    try {
      checkBearer(deps.config, { headers });
    } catch (error) {
      if (!(error instanceof RelayError)) throw error;
      await deps.refused?.(request, error);
      const answer = errorResponse(error);
      response.writeHead(answer.statusCode, { ...API_ANSWER_HEADERS, ...answer.headers });
      response.end(JSON.stringify(answer.body));
      return true;
    }
    response.writeHead(200, {
      ...API_ANSWER_HEADERS,
      'content-type': 'text/event-stream',
      connection: 'keep-alive',
    });
    // From the client's last event (a reconnecting EventSource sends it) or from now.
    const lastEventId = request.headers['last-event-id'];
    let since =
      typeof lastEventId === 'string' && !Number.isNaN(Date.parse(lastEventId))
        ? lastEventId
        : deps.clock.now().toISOString();
    /** What was sent at `since`: the same instant is asked for again, its transactions not sent twice. */
    let sentAtSince = new Set<string>();
    let closed = false;
    let polling = false;
    const poll = async () => {
      if (closed || polling) return;
      polling = true;
      try {
        const { transactions } = await listTransactions(deps, { since, limit: '200' });
        for (const t of transactions.sort((a, b) => a.updatedAt.localeCompare(b.updatedAt))) {
          const id = `${t.provider}/${t.account}/${t.reference}@${t.updatedAt}`;
          if (t.updatedAt === since && sentAtSince.has(id)) continue;
          if (t.updatedAt > since) {
            since = t.updatedAt;
            sentAtSince = new Set();
          }
          sentAtSince.add(id);
          response.write(`event: transaction\nid: ${t.updatedAt}\ndata: ${JSON.stringify(t)}\n\n`);
        }
      } catch (error) {
        response.write(`event: error\ndata: ${JSON.stringify({ message: (error as Error).name })}\n\n`);
      } finally {
        polling = false;
      }
    };
    const timer = setInterval(() => void poll(), intervalMs);
    const heartbeat = setInterval(() => response.write(': heartbeat\n\n'), HEARTBEAT_MS);
    request.on('close', () => {
      closed = true;
      clearInterval(timer);
      clearInterval(heartbeat);
    });
    response.write(': connected\n\n');
    void poll();
    return true;
  };
}
