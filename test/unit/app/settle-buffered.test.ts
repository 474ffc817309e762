import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { settleBuffered } from '../../../shared/app/buffer/settle-buffered';
import type { RelayServices } from '../../../shared/app/services';
import { parseConfig } from '../../../shared/config/load';
import { StorageUnavailableError } from '../../../shared/domain/errors';
import { createScrubber } from '../../../shared/util/redact';
import { silentLogger } from '../../helpers/relay';

function services(): RelayServices {
  return {
    config: parseConfig({ management: { bearerToken: 'management-token-0123456789' } }),
    store: new MemoryStore(),
    clock: { now: () => new Date('2026-11-26T10:00:00.000Z') },
    log: silentLogger,
    scrub: createScrubber([]),
  };
}

describe('settleBuffered', () => {
  it('calls a message of a version this relay does not apply unappliable, never a retry', async () => {
    // Act
    const settled = await settleBuffered(services(), () => JSON.stringify({ version: 7 }));

    // Assess
    expect(settled).toMatchObject({ kind: 'unappliable' });
  });

  it('calls a refusal the transport names (an unsealed spool entry) unappliable', async () => {
    // Prepare
    class Unsealed extends Error {}

    // Act
    const settled = await settleBuffered(
      services(),
      () => {
        throw new Unsealed('seal does not match');
      },
      { unappliable: (error) => error instanceof Unsealed },
    );

    // Assess
    expect(settled).toMatchObject({ kind: 'unappliable', error: { message: 'seal does not match' } });
  });

  it('calls a store outage storage, so the caller stops its batch', async () => {
    // Act
    const settled = await settleBuffered(services(), () => {
      throw new StorageUnavailableError('table unavailable');
    });

    // Assess
    expect(settled).toMatchObject({ kind: 'storage' });
  });

  it('calls work cut by the caller deadline deadline, whatever the work threw', async () => {
    // Act
    const settled = await settleBuffered(
      services(),
      () => {
        throw new Error('aborted');
      },
      { signal: AbortSignal.abort() },
    );

    // Assess
    expect(settled).toMatchObject({ kind: 'deadline' });
  });

  it('calls anything else an error, to be retried', async () => {
    // Act
    const settled = await settleBuffered(services(), () => {
      throw new TypeError('unexpected');
    });

    // Assess
    expect(settled).toMatchObject({ kind: 'error', error: { message: 'unexpected' } });
  });
});
