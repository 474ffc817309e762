import type { RouteContext } from '../providers/types';
import { sha256Hex } from '../util/ids';
import type { ApplyOutcome } from './apply-report';
import { applyReportToStore, type IngestSettings } from './ingest';
import type { Clock, ReceiptResult, RelayLogger, TransactionStore } from './ports';
import type { NormalizedReport, TransactionKey } from './transaction';

export type ReportDraft = Omit<NormalizedReport, 'receiptId' | 'receivedAt' | 'origin'>;

export interface IngestResult {
  receipt: ReceiptResult;
  duplicate: boolean;
  outcome: ApplyOutcome;
}

/** Headers that may carry credentials are never stored. */
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-api-key',
  'x-amz-security-token',
]);
const MAX_HEADER_VALUE = 1024;

export function storableHeaders(headers: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (SECRET_HEADERS.has(name)) continue;
    kept[name] = value.length > MAX_HEADER_VALUE ? `${value.slice(0, MAX_HEADER_VALUE)}…` : value;
  }
  return kept;
}

export class CallbackServices {
  constructor(
    readonly store: TransactionStore,
    readonly clock: Clock,
    readonly log: RelayLogger,
    readonly settings: IngestSettings,
  ) {}

  /**
   * Stores the raw callback durably first, then applies its report. The caller acknowledges the
   * provider only after this resolves, so nothing is acked that is not stored.
   */
  async ingest(
    ctx: RouteContext<unknown>,
    draft: ReportDraft,
    options: { storedBody?: string } = {},
  ): Promise<IngestResult> {
    const receivedAt = ctx.request.receivedAt.toISOString();
    const receipt = await this.storeReceipt(ctx, draft.key, options.storedBody);
    const report: NormalizedReport = {
      ...draft,
      receivedAt,
      origin: 'callback',
      receiptId: receipt.receiptId,
    };
    const outcome = await applyReportToStore(this.store, report, this.settings, this.clock);
    return { receipt, duplicate: receipt.deliveries > 1, outcome };
  }

  /** For callbacks that carry no transaction report of their own (e.g. a validation request). */
  async storeReceipt(
    ctx: RouteContext<unknown>,
    key: TransactionKey,
    storedBody?: string,
  ): Promise<ReceiptResult> {
    const body = storedBody ?? ctx.request.rawBody.toString('utf8');
    return this.store.recordReceipt({
      key,
      routeName: ctx.route.name,
      method: ctx.request.method,
      path: ctx.storedPath,
      headers: storableHeaders(ctx.request.headers),
      sourceIp: ctx.request.sourceIp,
      body,
      receivedAt: ctx.request.receivedAt.toISOString(),
      verification: ctx.verification,
      dedupeKey: sha256Hex(
        [key.provider, key.account, ctx.route.name, key.reference, sha256Hex(ctx.request.rawBody)].join('|'),
      ),
    });
  }
}
