import type { ReceiptSummary, TransactionStore } from '../../shared/app/ports';
import type { TransactionKey } from '../../shared/domain/transaction';

/** Every receipt of a transaction, page after page (the store hands out bounded pages). */
export async function allReceipts(
  store: Pick<TransactionStore, 'listReceipts'>,
  key: TransactionKey,
): Promise<ReceiptSummary[]> {
  const all: ReceiptSummary[] = [];
  let after: string | undefined;
  do {
    const page = await store.listReceipts(key, { limit: 25, ...(after ? { after } : {}) });
    all.push(...page.receipts);
    after = page.next;
  } while (after);
  return all;
}
