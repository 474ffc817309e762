import type { RelayError } from '../../domain/errors';
import { buildEvent, type EventEnvelope } from '../../domain/events';
import { isLate, within } from '../../util/deadline';
import { newId, sha256Hex } from '../../util/ids';
import { maskMsisdnsIn } from '../../util/mask';
import {
  redactRefusedBody,
  type Scrubber,
  scrubThenTruncate,
  scrubThenTruncateBytes,
} from '../../util/redact';
import type { QuarantineInput, ReceivedRequest, RelayLogger, RelayMetrics, TransactionStore } from '../ports';
import { storableHeaders } from './receipts';
import type { RefusalSampler, RefusalSummary } from './refusal-sampler';

/** Quarantine keeps enough of a rejected body to investigate without letting a flood fill the table. */
const QUARANTINE_BODY_LIMIT = 64 * 1024;
const MAX_PATH = 1024;
const MAX_MESSAGE = 1024;
/**
 * How far past the cut a body is read before it is scrubbed: more than any configured secret or
 * credential value, so a secret straddling the cut is whole when scrubbed, and the work stays bounded.
 */
const SCRUB_MARGIN = 8 * 1024;
import { QUARANTINE_WRITE_BUDGET_MS } from '../../config/limits';
import { REFUSALS_NOT_STORED_METRIC } from '../../config/metric-names';
export { QUARANTINE_WRITE_BUDGET_MS };

export interface RejectionDeps {
  store: TransactionStore;
  log: RelayLogger;
  /** Removes every configured secret value (path secrets, keys, tokens) from a text. */
  scrub: Scrubber;
  /**
   * Bounds the quarantine's write cost under a flood (the Lambda wiring sets one per process): over
   * the limits a refusal is counted (RefusalsNotStored, a summary item per minute) instead of stored.
   * Absent: every refusal is stored (the local server).
   */
  refusalSampler?: RefusalSampler;
  metrics?: RelayMetrics;
}

export interface RejectionContext {
  provider?: string;
  account?: string;
  routeName?: string;
  /** Path with any path secret replaced, when the secret was already verified. */
  storedPath?: string;
  /** Path kept when the path secret was wrong: its segment hidden (RouteKnowledge.refusedPath). */
  refusedPath?: string;
  /** The reference the refused body named (receive-callback.ts aimedReference). */
  reference?: string;
  /** Raise CallbackRejected: only for requests aimed at a configured provider account. */
  emitEvent: boolean;
  /** The HTTP status answered (from the single error mapping). */
  httpStatus: number;
  /** At most this long (and never over 1 s) waiting for the quarantine write before answering. */
  budgetMs?: number;
}

function clip(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/**
 * Records a rejected request before its error answer goes out: nothing anyone sent is silently lost.
 * Whatever stage refused it, secrets are removed first: configured secret values anywhere (path,
 * message, headers, body) and credential members in the body text. Returns the quarantine id. A failed
 * quarantine write is logged, never turned into a 5xx.
 */
export async function recordRejection(
  deps: RejectionDeps,
  request: ReceivedRequest,
  error: RelayError,
  context: RejectionContext,
): Promise<string> {
  const id = newId();
  const receivedAt = request.receivedAt.toISOString();
  const { httpStatus } = context;
  const scrub = deps.scrub;
  const sampler = deps.refusalSampler;
  // A configured account's allowance only once its path secret was verified (storedPath): requests to
  // a real account name with a wrong secret are anyone's, and must not use up the provider's.
  const knownAccount = Boolean(context.provider && context.account && context.storedPath);
  const summary = sampler?.takeSummary();
  // Waited for like the refusal's own write (within the same budget), not left to a frozen process.
  const summaryWritten = summary ? writeSummary(deps, summary) : undefined;
  const waitBudgetMs = Math.max(
    0,
    Math.min(QUARANTINE_WRITE_BUDGET_MS, context.budgetMs ?? QUARANTINE_WRITE_BUDGET_MS),
  );
  if (
    sampler &&
    !sampler.admit({
      sourceIp: request.sourceIp,
      knownAccount,
      errorCode: error.code,
      path: scrub(context.storedPath ?? context.refusedPath ?? request.path),
    })
  ) {
    deps.metrics?.count(REFUSALS_NOT_STORED_METRIC, 1, { route: knownAccount ? 'account' : 'unknown' });
    if (summaryWritten) await within(summaryWritten, waitBudgetMs);
    return id;
  }
  const bodyLimit = sampler && !knownAccount ? sampler.limits.unknownRouteBodyBytes : QUARANTINE_BODY_LIMIT;
  const { body, isUtf8, path, message, headers, sourceIp } = scrubbedParts(scrub, request, error, {
    bodyLimit,
    storedPath: context.storedPath ?? context.refusedPath,
  });
  // The entry keeps the path as sent (accepting it later reads its parameters from it), but for a wrong
  // path secret's segment (RouteKnowledge.refusedPath: such an entry cannot be accepted); its event and log
  // lines, like every answer, mask a phone number the sender put in it (an account, a kind) or the message.
  const shown = { path: maskMsisdnsIn(path), message: maskMsisdnsIn(message) };
  const outbox = rejectedEvent(id, receivedAt, { request, error, context, ...shown, sourceIp });
  const entry: QuarantineInput = {
    id,
    receivedAt,
    httpStatus,
    errorCode: error.code,
    message,
    provider: context.provider,
    account: context.account,
    routeName: context.routeName,
    method: clip(request.method, 16),
    path,
    headers,
    sourceIp,
    body,
    bodyEncoding: isUtf8 ? 'utf8' : 'base64',
    bodyBytes: request.rawBody.length,
    bodySha256: sha256Hex(request.rawBody),
    bodyTruncated: request.rawBody.length > bodyLimit,
    ...(context.reference && knownAccount ? { reference: clip(context.reference, 256) } : {}),
    outbox,
  };
  const result = await boundedWrite(deps, entry, summaryWritten, waitBudgetMs);
  if (isLate(result)) {
    deps.log.warn('quarantine write still pending; answering the refusal anyway', {
      errorCode: error.code,
      path: shown.path,
      quarantineId: id,
    });
  }
  deps.log.warn('request rejected', {
    provider: context.provider,
    account: context.account,
    route: context.routeName,
    httpStatus,
    errorCode: error.code,
    reason: shown.message,
    path: shown.path,
    sourceIp,
    quarantineId: id,
  });
  return id;
}

/** What is kept of the refused request: scrubbed of secrets, then cut to its limits. */
function scrubbedParts(
  scrub: (text: string) => string,
  request: ReceivedRequest,
  error: RelayError,
  { bodyLimit, storedPath }: { bodyLimit: number; storedPath: string | undefined },
) {
  const kept = request.rawBody.subarray(0, bodyLimit);
  const isUtf8 = Buffer.from(kept.toString('utf8'), 'utf8').equals(kept);
  // Scrubbed before it is cut: a secret straddling the cut is redacted whole, never kept in part.
  const window = request.rawBody.subarray(0, bodyLimit + SCRUB_MARGIN).toString('utf8');
  const body = isUtf8
    ? scrubThenTruncateBytes(window, bodyLimit, (text) => scrub(redactRefusedBody(text)))
    : kept.toString('base64');
  const path = scrubThenTruncate(storedPath ?? request.path, MAX_PATH, scrub);
  const message = scrubThenTruncate(error.message, MAX_MESSAGE, scrub);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(storableHeaders(request.headers)))
    headers[scrub(name)] = scrub(value);
  return { body, isUtf8, path, message, headers, sourceIp: clip(request.sourceIp, 64) };
}

/** CallbackRejected, for a refusal aimed at a configured account (its quarantine entry's outbox). */
function rejectedEvent(
  id: string,
  receivedAt: string,
  refused: {
    request: ReceivedRequest;
    error: RelayError;
    context: RejectionContext;
    path: string;
    message: string;
    sourceIp: string;
  },
): EventEnvelope[] {
  const { request, error, context } = refused;
  if (!context.emitEvent || !context.provider || !context.account) return [];
  return [
    buildEvent(
      'CallbackRejected',
      `${context.provider}:${context.account}:quarantine`,
      id,
      'callback',
      receivedAt,
      {
        provider: context.provider,
        account: context.account,
        route: context.routeName ?? null,
        method: clip(request.method, 16),
        path: refused.path,
        sourceIp: refused.sourceIp,
        httpStatus: context.httpStatus,
        errorCode: error.code,
        message: refused.message,
        quarantineId: id,
        receivedAt,
      },
    ),
  ];
}

/** The entry's write (and the summary's), waited for at most the budget: a refusal is answered promptly even when storage stalls (the write goes on, and is logged). */
function boundedWrite(
  deps: RejectionDeps,
  entry: QuarantineInput,
  summaryWritten: Promise<unknown> | undefined,
  waitBudgetMs: number,
) {
  const write = deps.store
    .quarantine(entry)
    .then(() => 'stored' as const)
    .catch((storeError: unknown) => {
      deps.log.error('quarantine write failed', {
        errorCode: entry.errorCode,
        path: maskMsisdnsIn(entry.path),
        error: (storeError as Error).message,
      });
      return 'failed' as const;
    });
  return within(
    summaryWritten ? Promise.all([write, summaryWritten]).then(([stored]) => stored) : write,
    waitBudgetMs,
  );
}
/**
 * One quarantine item with the counts of the refusals a finished minute did not store individually,
 * so a flood stays visible where the refusals are (and in the RefusalsNotStored metric).
 */
async function writeSummary(deps: RejectionDeps, summary: RefusalSummary): Promise<void> {
  const body = JSON.stringify(summary);
  const entry: QuarantineInput = {
    id: newId(),
    receivedAt: summary.to,
    httpStatus: 0,
    errorCode: 'REFUSALS_NOT_STORED',
    message: `${summary.notStored} refused requests between ${summary.from} and ${summary.to} were counted, not stored one by one (flood limits)`,
    provider: undefined,
    account: undefined,
    routeName: undefined,
    method: '-',
    path: '(summary)',
    headers: {},
    sourceIp: '-',
    body,
    bodyEncoding: 'utf8',
    bodyBytes: Buffer.byteLength(body),
    bodySha256: sha256Hex(Buffer.from(body)),
    bodyTruncated: false,
    outbox: [],
  };
  try {
    await deps.store.quarantine(entry);
    deps.log.warn('refusals over the flood limits were counted, not stored', {
      notStored: summary.notStored,
      from: summary.from,
      to: summary.to,
      byErrorCode: summary.byErrorCode,
    });
  } catch (storeError) {
    deps.log.error('quarantine summary write failed', {
      notStored: summary.notStored,
      error: (storeError as Error).message,
    });
  }
}
