import { StorageUnavailableError } from '../../domain/errors';
import { untilAborted } from '../../util/deadline';
import type { BufferedMessage } from '../ports';
import type { CallbackServices } from '../services';
import { type AppliedBufferedCallback, applyBufferedCallback } from './apply-buffered-callback';
import { UnappliableBufferedCallbackError } from './ingress-buffer';

/**
 * What became of one buffered message, the same for the SQS consumer (functions/buffer-consumer) and the
 * local spool's drain (local/file-ingress-buffer.ts); each decides what its transport does with it:
 * - `applied`: stored (or found already stored) and its events in the outbox: remove it;
 * - `unappliable`: no retry can help (unknown version, account gone, facts its provider does not record):
 *   the dead-letter queue, or `failed/`, for a person to look at;
 * - `storage`: the store is still down: keep it, and stop the batch (the rest would fail the same way);
 * - `deadline`: the caller's deadline came first (the write may still land; the dedupe makes a repeat harmless);
 * - `error`: anything else: retried a few times, then set aside.
 */
export type BufferedSettlement =
  | { kind: 'applied'; applied: AppliedBufferedCallback; message: BufferedMessage }
  | { kind: 'unappliable' | 'storage' | 'deadline' | 'error'; error: Error };

/** Applies one buffered message (read by `read`, which may refuse it) and says what became of it. */
export async function settleBuffered(
  services: CallbackServices,
  read: () => unknown,
  options: { signal?: AbortSignal; unappliable?: (error: unknown) => boolean } = {},
): Promise<BufferedSettlement> {
  const { signal } = options;
  try {
    const raw = await read();
    const work = applyBufferedCallback(services, raw, signal ? { signal } : {});
    const applied = signal
      ? await untilAborted(work, signal, () => new Error('the deadline came before the message was applied'))
      : await work;
    return { kind: 'applied', applied, message: applied.message };
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    if (error instanceof UnappliableBufferedCallbackError || options.unappliable?.(error))
      return { kind: 'unappliable', error: failure };
    // Cut by the deadline (the store's call aborted, or it ignored the signal).
    if (signal?.aborted) return { kind: 'deadline', error: failure };
    if (error instanceof StorageUnavailableError) return { kind: 'storage', error: failure };
    return { kind: 'error', error: failure };
  }
}
