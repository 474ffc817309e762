import { type ApplyOutcome, applyReport } from './apply-report';
import { StorageUnavailableError } from './errors';
import type { Clock, TransactionStore } from './ports';
import type { NormalizedReport } from './transaction';

const MAX_ATTEMPTS = 12;

export interface IngestSettings {
  reconcileWindowSeconds: number;
}

/**
 * Applies a report with optimistic concurrency: read, decide (pure), write conditionally on the
 * revision read. A lost race re-reads and decides again, so 20 concurrent identical callbacks end
 * in one transition and one event, never a read-then-write overwrite.
 */
export async function applyReportToStore(
  store: TransactionStore,
  report: NormalizedReport,
  settings: IngestSettings,
  clock: Clock,
): Promise<ApplyOutcome> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const current = await store.getTransaction(report.key);
    const outcome = applyReport(current, report, {
      now: clock.now().toISOString(),
      reconcileWindowSeconds: settings.reconcileWindowSeconds,
    });
    if (outcome.kind === 'noop') return outcome;
    const written = current
      ? await store.replaceTransaction({ ...outcome.next, revision: current.revision + 1 }, current.revision)
      : await store.createTransaction({ ...outcome.next, revision: 1 });
    if (written) return outcome;
    // Jittered pause so contending writers do not retry in lock-step.
    await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
  }
  throw new StorageUnavailableError(
    `could not apply report to ${report.key.reference} after ${MAX_ATTEMPTS} contended attempts`,
  );
}
