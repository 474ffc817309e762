import type { SqsEvent } from '../../functions/buffer-consumer/handler';
import { IngressBufferUnavailableError } from '../../shared/app/buffer/ingress-buffer';
import type { BufferedMessage, IngressBuffer, RelayMetrics } from '../../shared/app/ports';

/** An ingress buffer in memory, with the same failure switches as MemoryStore. */
export class MemoryIngressBuffer implements IngressBuffer {
  readonly messages: { id: string; body: string }[] = [];
  failure: 'none' | 'error' | 'hang' = 'none';
  /** The signal of each accept, to check that the ack budget reached the buffer. */
  readonly signals: (AbortSignal | undefined)[] = [];

  async accept(message: BufferedMessage, options: { signal?: AbortSignal } = {}): Promise<{ id: string }> {
    this.signals.push(options.signal);
    if (this.failure === 'error') throw new IngressBufferUnavailableError('memory buffer: simulated outage');
    if (this.failure === 'hang')
      await new Promise<void>((_, reject) =>
        options.signal?.addEventListener(
          'abort',
          () => reject(new IngressBufferUnavailableError('aborted')),
          {
            once: true,
          },
        ),
      );
    const id = `m-${this.messages.length + 1}`;
    // Stored as text, like SQS, so what is applied is what survives a JSON round trip.
    this.messages.push({ id, body: JSON.stringify(message) });
    return { id };
  }

  /** The buffered messages as the SQS event the consumer function receives. */
  asSqsEvent(): SqsEvent {
    return {
      Records: this.messages.map((m) => ({
        messageId: m.id,
        body: m.body,
        attributes: { ApproximateReceiveCount: '1' },
      })),
    };
  }
}

/** Metrics that remember what was recorded. */
export class RecordingMetrics implements RelayMetrics {
  readonly counts: { name: string; value: number; dimensions: Record<string, string> | undefined }[] = [];
  readonly timings: { name: string; ms: number; dimensions: Record<string, string> | undefined }[] = [];
  flushes = 0;
  count(name: string, value = 1, dimensions?: Record<string, string>): void {
    this.counts.push({ name, value, dimensions });
  }
  timing(name: string, ms: number, dimensions?: Record<string, string>): void {
    this.timings.push({ name, ms, dimensions });
  }
  flush(): void {
    this.flushes++;
  }
  total(name: string): number {
    return this.counts.filter((c) => c.name === name).reduce((sum, c) => sum + c.value, 0);
  }
}
