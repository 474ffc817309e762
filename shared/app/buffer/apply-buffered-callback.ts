import { accountKey } from '../../config/schema';
import { RelayError, StorageUnavailableError } from '../../domain/errors';
import { findProvider } from '../../providers/registry';
import type { CallbackInput } from '../../providers/types';
import { decisionHandlerFor } from '../decisions/decisions';
import {
  authenticationFrom,
  confirmationsOf,
  type IngestBatchResult,
  ingestIntents,
} from '../transactions/ingest-report';
import { type DigestedReceiptDraft, storeReceipt } from '../callbacks/receipts';
import { decodeBufferedMessage, describeBuffered, UnappliableBufferedCallbackError } from './ingress-buffer';
import type { BufferedCallback, BufferedDecision, BufferedMessage } from '../ports';
import type { CallbackServices } from '../services';

export interface AppliedBufferedCallback {
  message: BufferedMessage;
  /** The ingest result of a callback; a C2B validation's receipt alone. */
  result: Pick<IngestBatchResult, 'receipt'> & Partial<IngestBatchResult>;
}

function unappliable(
  message: BufferedMessage,
  why: string,
  cause?: unknown,
): UnappliableBufferedCallbackError {
  return new UnappliableBufferedCallbackError(
    `Buffered ${message.provider}/${message.account} ${message.route} callback (request ${message.requestId}) cannot be applied: ${why}`,
    { cause },
  );
}

/**
 * Applies a callback the ingress buffer took while the store was down, exactly as the direct path would
 * have: account and route resolved again from the current config, the stored body parsed again by the
 * route's parser, then the one ingest pipeline with origin `buffer`. The receipt's dedupe key comes
 * from the original bytes' digest, so applying a copy twice, or a copy of a callback whose direct write
 * did land, changes nothing and publishes nothing again.
 *
 * Throws StorageUnavailableError while the store is still down (retry later), and
 * UnappliableBufferedCallbackError when no retry can help (dead-letter queue).
 */
export async function applyBufferedCallback(
  services: CallbackServices,
  raw: unknown,
  options: { signal?: AbortSignal } = {},
): Promise<AppliedBufferedCallback> {
  const message = decodeBufferedMessage(raw);
  const account = services.config.accounts.get(accountKey(message.provider, message.account));
  if (!account) throw unappliable(message, 'the account is no longer configured');
  if (message.kind === 'decision') return applyBufferedDecision(services, message, options);
  const provider = findProvider(message.provider);
  const route = provider?.routes.find((r) => r.name === message.route);
  if (!provider || !route) throw unappliable(message, 'the route is no longer served');

  let body: Record<string, unknown>;
  try {
    body = message.trustedBody ?? (JSON.parse(message.body) as Record<string, unknown>);
  } catch (cause) {
    throw unappliable(message, 'the stored body is not JSON', cause);
  }
  const input: CallbackInput<unknown> = {
    account,
    route: route.name,
    params: message.params,
    body,
    // Verification happened on arrival (its facts travel with the message); parsers never read the bytes.
    rawBody: Buffer.alloc(0),
    headers: message.headers,
    sourceIp: message.sourceIp,
  };
  let parsed: ReturnType<typeof route.parse>;
  try {
    parsed = route.parse(input);
  } catch (cause) {
    throw unappliable(message, `the route's parser refuses the body (${(cause as Error).message})`, cause);
  }
  if (parsed.type !== 'reports') throw unappliable(message, 'the route answers a question, not a report');

  const confirmations = confirmationsOf(account);
  try {
    const result = await ingestIntents(
      {
        store: services.store,
        clock: services.clock,
        log: services.log,
        reconciliation: services.config.reconciliation,
        hintsPerAccountPerDay: services.limits?.hintsPerAccountPerDay,
      },
      {
        provider: message.provider,
        account: message.account,
        origin: 'buffer',
        receivedAt: message.receivedAt,
        authenticated: message.authenticated,
        authentication: authenticationFrom(message.verification, message.authenticated),
        ...confirmations,
        // Stricter of the two: the account's setting now (turned on since) or when the callback came.
        confirmUnsignedSuccess:
          message.confirmUnsignedSuccess || confirmations.confirmUnsignedSuccess === true,
        intents: parsed.reports,
        facts: parsed.facts,
        receipt: receiptOf(message),
      },
      options,
    );
    services.log.info('buffered callback applied', {
      ...describeBuffered(message),
      receiptId: result.receipt?.receiptId,
      duplicate: (result.receipt?.deliveries ?? 1) > 1,
      outcomes: result.outcomes.map((o) => o.kind),
    });
    return { message, result };
  } catch (error) {
    if (error instanceof StorageUnavailableError || !(error instanceof RelayError)) throw error;
    // A refusal the direct path would have answered 4xx (limits, unstorable input): no retry helps.
    throw unappliable(message, error.message, error);
  }
}

/**
 * A provider's question answered before it was stored: its receipt, then its decision (first writer
 * wins) through the provider's decision handler, whose event carries origin `buffer` like every event of
 * an applied buffered message.
 */
async function applyBufferedDecision(
  services: CallbackServices,
  message: BufferedDecision,
  options: { signal?: AbortSignal },
): Promise<AppliedBufferedCallback> {
  const decisions = decisionHandlerFor(message.provider, message.useCase);
  if (!decisions) throw unappliable(message, `no decision handler for ${message.useCase}`);
  const facts = decisions.factsSchema.safeParse(message.outcome);
  if (!facts.success)
    throw unappliable(message, `the ${decisions.label} decision is not one this relay records`);
  const key = { provider: message.provider, account: message.account, reference: message.reference };
  try {
    const receipt = await storeReceipt(services.store, key, receiptOf(message), options);
    const stood = await services.store.putRecordIfAbsent(
      decisions.record(key, facts.data, receipt.receiptId, message.receivedAt, 'buffer'),
      options,
    );
    services.log.info(`buffered ${decisions.label} applied`, {
      ...describeBuffered(message),
      reference: message.reference,
      resultCode: facts.data.resultCode,
      written: stood.written,
    });
    return { message, result: { receipt } };
  } catch (error) {
    if (error instanceof StorageUnavailableError || !(error instanceof RelayError)) throw error;
    throw unappliable(message, error.message, error);
  }
}

/** The receipt a buffered message stands for: its bytes' digest makes the direct path's dedupe key. */
function receiptOf(message: BufferedCallback | BufferedDecision): DigestedReceiptDraft {
  return {
    routeName: message.route,
    method: message.method,
    path: message.path,
    headers: message.headers,
    sourceIp: message.sourceIp,
    body: message.body,
    receivedAt: message.receivedAt,
    verification: { ...message.verification, buffered: { at: message.bufferedAt } },
    rawBodySha256: message.rawBodySha256,
  };
}
