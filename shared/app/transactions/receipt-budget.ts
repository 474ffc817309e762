import type { ReceiptTally } from '../../domain/transaction';

/**
 * What one transaction may keep of distinct callbacks about it. A genuine transaction sees a handful
 * (a callback, its retries with other bytes, a reversal); a forged flood of distinct bodies about a
 * known reference must not grow its storage and its history without end. Past the budget a receipt
 * keeps its metadata (route, source, time, size) and loses its body, and the tally says so.
 */
export const RECEIPT_BUDGET = { receipts: 64, bytes: 2 * 1024 * 1024 } as const;

/**
 * Counts one receipt against its transaction's budget. A `decisive` receipt (ingest-report.ts: its report
 * moved the status, or first claimed its outcome) is kept past the budget: anyone who knows a reference
 * can spend the budget with bodies that change nothing. Such receipts stay few: a status only moves
 * forward, and there are two outcomes.
 */
export function tallyReceipt(
  tally: ReceiptTally | undefined,
  bytes: number,
  budget: { receipts: number; bytes: number } = RECEIPT_BUDGET,
  decisive = false,
): { tally: ReceiptTally; keep: boolean } {
  const now = tally ?? { kept: 0, bytes: 0, dropped: 0, droppedBytes: 0 };
  const keep = decisive || (now.kept + 1 <= budget.receipts && now.bytes + bytes <= budget.bytes);
  return keep
    ? { keep, tally: { ...now, kept: now.kept + 1, bytes: now.bytes + bytes } }
    : { keep, tally: { ...now, dropped: now.dropped + 1, droppedBytes: now.droppedBytes + bytes } };
}

/** Unmatched reference-less hints one account may take per UTC day (each leaves a record and a receipt). */
export const HINTS_PER_ACCOUNT_PER_DAY = 1000;
