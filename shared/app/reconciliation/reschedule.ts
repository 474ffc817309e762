import { nextCheckAt } from '../../domain/reconcile-schedule';
import { isFinal } from '../../domain/status';
import type { TransactionRecord } from '../../domain/transaction';
import type { Clock, RelayLogger, RelayStore, UnscheduledScan } from '../ports';
import { reconcileTiming } from './reconcile-timing';
import type { RelayServices } from '../services';

export interface RescheduleResult {
  /** Non-final transactions found without a schedule. */
  found: number;
  /** Given one (0 with dryRun). */
  scheduled: number;
  /** Scheduled or finalized by someone else meanwhile. */
  skipped: number;
}

/** Attempts per transaction when a callback or another writer moves its revision meanwhile. */
const ATTEMPTS = 3;

/**
 * The one-time `npm run reschedule`: every non-final transaction stored before reconciliation existed
 * (no `reconcile` state, so never in the due index) gets the schedule a new one gets: its first check at
 * creation + the provider's first-check delay, or now when that has passed (so one past its window is
 * checked once and expired with the provider's last answer). Idempotent: a scheduled transaction is left
 * alone, so running it twice, or beside the live relay, is safe (every write is conditional on the revision).
 */
export async function rescheduleUnscheduled(
  services: Pick<RelayServices, 'config'> & {
    store: RelayStore;
    /** Finds them (a table scan in DynamoDB: the operator's adapter, not the functions' store). */
    scan: UnscheduledScan;
    clock: Clock;
    log?: RelayLogger;
  },
  options: { dryRun?: boolean } = {},
): Promise<RescheduleResult> {
  const { store, scan, config, clock } = services;
  const result: RescheduleResult = { found: 0, scheduled: 0, skipped: 0 };
  let cursor: string | undefined;
  do {
    const page = await scan.scanUnscheduled(cursor);
    cursor = page.cursor;
    for (const key of page.keys) {
      result.found++;
      if (options.dryRun) continue;
      let done = false;
      for (let attempt = 0; attempt < ATTEMPTS && !done; attempt++) {
        const tx = await store.getTransaction(key, { consistent: true });
        if (!tx || isFinal(tx.status) || tx.reconcile) break;
        const timing = reconcileTiming(config.reconciliation, key.provider, tx.kind);
        const now = clock.now().toISOString();
        const next: TransactionRecord = {
          ...tx,
          reconcile: {
            dueAt: nextCheckAt({
              schedule: timing.schedule,
              createdAt: tx.createdAt,
              reconcileUntil: tx.reconcileUntil,
              checksDone: 0,
              now,
              timeScale: timing.timeScale,
            }),
            checks: 0,
            recent: [],
          },
          revision: tx.revision + 1,
          outbox: [],
        };
        done = await store.replaceTransaction(next, tx.revision);
      }
      if (done) result.scheduled++;
      else result.skipped++;
    }
  } while (cursor);
  services.log?.info('reschedule', { ...result });
  return result;
}
