import { accountKey, type ResolvedAccount } from '../../config/schema';
import type { TransactionRecord } from '../../domain/transaction';
import type { ProviderModule, ProviderRoute } from '../../providers/types';
import { sha256Hex } from '../../util/ids';
import { authenticationFrom, confirmationsOf, ingestIntents } from '../transactions/ingest-report';
import type { ReceiptInput, ReceivedRequest } from '../ports';
import type { KeyedReceiptDraft } from './receipts';
import type { RelayServices } from '../services';

/** A receipt as the store keeps it: what arrived (ReceiptInput), and when, how often and whether whole. */
export interface StoredReceipt extends Omit<ReceiptInput, 'receivedAt'> {
  receiptId: string;
  firstReceivedAt: string;
  lastReceivedAt: string;
  /** Its body was dropped (the transaction's receipt budget): it was applied, and cannot be again. */
  bodyDropped?: boolean;
}

/** The route a stored callback's method and path lead to now (the inbound router, injected: no transport here). */
export type StoredCallbackRouter = (request: ReceivedRequest) => {
  provider: ProviderModule<unknown>;
  account: ResolvedAccount;
  route: ProviderRoute<unknown>;
  params: Record<string, string>;
};

/** Where the receipts received since a moment can be listed (locally: a scan of DynamoDB Local). */
export type StoredReceiptSource = (since: string) => AsyncIterable<StoredReceipt>;

/** A receipt applied at start is marked once, so the next start does not apply it again. */
const RECOVERED_RECEIPT_NAMESPACE = 'recovered-receipt';

export interface RecoveryResult {
  /** Receipts received in the window. */
  looked: number;
  /** Stored but never applied: applied now, through the one ingest. */
  applied: number;
  /** Could not be applied (account or route gone, refused on verification, …): left to the poller. */
  skipped: number;
}

const SECRET_PLACEHOLDER = '{secret}';

/** Whether the transaction's history names the receipt (a transition, a conflict, a piece of evidence). */
function mentions(tx: TransactionRecord, receiptId: string): boolean {
  const evidence = (tx as { evidence?: { receiptId?: string | null }[] }).evidence ?? [];
  return (
    tx.transitions.some((t) => t.receiptId === receiptId) ||
    tx.conflicts.some((c) => c.receiptId === receiptId) ||
    evidence.some((e) => e.receiptId === receiptId)
  );
}

/**
 * A callback is stored (its receipt) before its reports are applied; a process that dies between the
 * two leaves a receipt nobody applied, and the provider (MoMo sends each callback once) may never send
 * it again. At start, each receipt received since `since` whose transaction does not name it is applied
 * the way it was on arrival: route resolved again, the provider's verification run again on the stored
 * body (a body stored redacted no longer matches a signature, so it counts as unauthenticated), the
 * route's parser, then the one ingest pipeline (origin `callback`, the receipt's own dedupe key). The
 * pipeline decides as always: a report already applied is a duplicate, so nothing is published twice.
 * Each receipt applied here is marked (a provider record, first writer wins), so it is applied once.
 */
export async function applyStoredCallbacks(
  services: RelayServices,
  receipts: StoredReceiptSource,
  options: { since: string; routeOf: StoredCallbackRouter },
): Promise<RecoveryResult> {
  const { store, log } = services;
  const result: RecoveryResult = { looked: 0, applied: 0, skipped: 0 };
  const transactions = new Map<string, TransactionRecord | undefined>();
  for await (const receipt of receipts(options.since)) {
    result.looked++;
    if (receipt.bodyDropped) continue;
    const where = { ...receipt.key, receiptId: receipt.receiptId, route: receipt.routeName };
    try {
      const txId = `${receipt.key.provider}/${receipt.key.account}/${receipt.key.reference}`;
      if (!transactions.has(txId))
        transactions.set(txId, await store.getTransaction(receipt.key, { consistent: true }));
      const tx = transactions.get(txId);
      if (tx && mentions(tx, receipt.receiptId)) continue;
      const marker = {
        provider: receipt.key.provider,
        account: receipt.key.account,
        namespace: RECOVERED_RECEIPT_NAMESPACE,
        id: receipt.receiptId,
      };
      if (await store.getRecord(marker, { consistent: true })) continue;

      const again = readAgain(services, receipt, options.routeOf);
      // A C2B validation is a question answered on arrival (its decision is recorded then), not a report.
      if (again.parsed.type !== 'reports') continue;
      const ingested = await ingestStored(services, receipt, { ...again, parsed: again.parsed });
      await store.putRecordIfAbsent({
        ...marker,
        data: { reference: receipt.key.reference, outcomes: ingested.outcomes.map((o) => o.kind) },
        createdAt: services.clock.now().toISOString(),
      });
      transactions.delete(txId);
      result.applied++;
      log.warn('stored callback applied at start (its process stopped before applying it)', {
        ...where,
        outcomes: ingested.outcomes.map((o) => o.kind),
      });
    } catch (error) {
      result.skipped++;
      log.error('stored callback not applied at start; the poller will ask the provider', {
        ...where,
        error: services.scrub((error as Error).message),
      });
    }
  }
  return result;
}

/**
 * A stored callback read again the way it was on arrival: its route resolved from the stored path (path
 * secret put back), the provider's verification run on the stored body (a refusal is thrown), its parse.
 */
function readAgain(services: RelayServices, receipt: StoredReceipt, routeOf: StoredCallbackRouter) {
  const account = services.config.accounts.get(accountKey(receipt.key.provider, receipt.key.account));
  const body = receipt.body;
  const resolved = routeOf({
    requestId: `recovery-${receipt.receiptId}`,
    method: receipt.method,
    path: receipt.path.replace(SECRET_PLACEHOLDER, account?.pathSecret ?? SECRET_PLACEHOLDER),
    headers: receipt.headers,
    rawBody: Buffer.from(body, 'utf8'),
    sourceIp: receipt.sourceIp,
    receivedAt: new Date(receipt.lastReceivedAt),
  });
  if (resolved.route.name !== receipt.routeName) throw new Error('the path now leads to another route');
  const parsedBody = JSON.parse(body) as Record<string, unknown>;
  const input = {
    account: resolved.account,
    route: resolved.route.name,
    params: resolved.params,
    body: parsedBody,
    rawBody: Buffer.from(body, 'utf8'),
    headers: receipt.headers,
    sourceIp: receipt.sourceIp,
  };
  const verification = resolved.provider.verify?.(input) ?? { facts: {}, authenticated: false };
  if (verification.refusal) throw verification.refusal;
  const parsed = resolved.route.parse({ ...input, body: verification.trustedBody ?? parsedBody });
  return { resolved, verification, parsed };
}

type ReadAgain = ReturnType<typeof readAgain>;

/** The stored callback's reports through the one ingest pipeline (origin `callback`, the receipt's own dedupe key). */
function ingestStored(
  services: RelayServices,
  receipt: StoredReceipt,
  {
    resolved,
    verification,
    parsed,
  }: ReadAgain & { parsed: Extract<ReadAgain['parsed'], { type: 'reports' }> },
) {
  const draft: KeyedReceiptDraft = {
    routeName: receipt.routeName,
    method: receipt.method,
    path: receipt.path,
    headers: receipt.headers,
    sourceIp: receipt.sourceIp,
    body: receipt.body,
    receivedAt: receipt.lastReceivedAt,
    verification: receipt.verification,
    rawBodySha256: sha256Hex(receipt.body),
    dedupeKey: receipt.dedupeKey,
  };
  return ingestIntents(
    {
      store: services.store,
      clock: services.clock,
      log: services.log,
      reconciliation: services.config.reconciliation,
      hintsPerAccountPerDay: services.limits?.hintsPerAccountPerDay,
    },
    {
      provider: resolved.provider.id,
      account: resolved.account.id,
      origin: 'callback',
      receivedAt: receipt.lastReceivedAt,
      authenticated: verification.authenticated,
      authentication: authenticationFrom(receipt.verification, verification.authenticated),
      ...confirmationsOf(resolved.account),
      intents: parsed.reports,
      facts: parsed.facts,
      receipt: draft,
    },
  );
}
