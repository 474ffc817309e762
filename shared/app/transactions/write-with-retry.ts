import { StorageUnavailableError } from '../../domain/errors';
import type { TransactionKey, TransactionRecord } from '../../domain/transaction';
import type { TransactionStore, WriteOptions } from '../ports';

const MAX_ATTEMPTS = 12;

export interface WriteDecision<T> {
  /** The record to write (its revision is set here); none: nothing to write. */
  next?: TransactionRecord;
  result: T;
}

/**
 * The one read → decide → conditional write loop. The decision is pure; the write is conditional on
 * the revision read (or on absence), so a lost race re-reads and decides again: 20 concurrent identical
 * callbacks end in one transition and one event, never a read-then-write overwrite. The first read is
 * eventually consistent (half the cost); after a lost race the re-read is strongly consistent.
 */
export async function writeWithRetry<T>(
  store: TransactionStore,
  key: TransactionKey,
  decide: (current: TransactionRecord | undefined) => WriteDecision<T>,
  options: WriteOptions & {
    what: string;
    /** The record as just read or written by the caller (a claim's result): saves the first read. */
    initial?: TransactionRecord;
  },
): Promise<T> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const current =
      attempt === 1 && options.initial
        ? options.initial
        : await store.getTransaction(key, { consistent: attempt > 1, signal: options.signal });
    const { next, result } = decide(current);
    if (!next) return result;
    const written = current
      ? await store.replaceTransaction({ ...next, revision: current.revision + 1 }, current.revision, options)
      : await store.createTransaction({ ...next, revision: 1 }, options);
    if (written) return result;
    // Jittered pause so contending writers do not retry in lock-step.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
  }
  throw new StorageUnavailableError(`could not ${options.what} after ${MAX_ATTEMPTS} contended attempts`);
}
