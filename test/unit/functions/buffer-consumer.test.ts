import { describe, expect, it } from 'vitest';
import { createBufferConsumer } from '../../../functions/buffer-consumer/handler';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import type { RelayServices } from '../../../shared/app/services';
import { parseConfig } from '../../../shared/config/load';
import { createScrubber } from '../../../shared/util/redact';
import { RecordingMetrics } from '../../helpers/ingress-buffer';
import { silentLogger } from '../../helpers/relay';

function services(metrics?: RecordingMetrics): RelayServices {
  return {
    config: parseConfig({ management: { bearerToken: 'management-token-0123456789' } }),
    store: new MemoryStore(),
    clock: { now: () => new Date('2026-11-21T10:00:01.000Z') },
    log: silentLogger,
    scrub: createScrubber([]),
    ...(metrics ? { metrics } : {}),
  };
}

describe('buffer-consumer handler', () => {
  it('answers an empty batch with no failures and flushes the metrics of the invocation', async () => {
    // Prepare
    const metrics = new RecordingMetrics();

    // Act
    const answer = await createBufferConsumer(services(metrics))({ Records: [] }, {} as never);

    // Assess
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(metrics.flushes).toBe(1);
  });

  it('reports each record it cannot apply by its message id, and counts why', async () => {
    // Prepare
    const metrics = new RecordingMetrics();

    // Act
    const answer = await createBufferConsumer(services(metrics))(
      {
        Records: [
          { messageId: 'a', body: '{"version":1,"kind":"callback"}' },
          { messageId: 'b', body: 'garbage' },
        ],
      },
      {} as never,
    );

    // Assess
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'a' }, { itemIdentifier: 'b' }] });
    expect(metrics.counts.map((c) => [c.name, c.dimensions])).toEqual([
      ['BufferedCallbacksFailed', { reason: 'unappliable' }],
      ['BufferedCallbacksFailed', { reason: 'unappliable' }],
    ]);
    expect(metrics.flushes).toBe(1);
  });

  it('works without metrics wired', async () => {
    // Act
    const answer = await createBufferConsumer(services())(
      { Records: [{ messageId: 'a', body: '{}' }] },
      {} as never,
    );

    // Assess
    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'a' }]);
  });
});
