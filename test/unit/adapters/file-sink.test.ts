import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileEventSink } from '../../../shared/adapters/events/file-sink';
import { buildEvent } from '../../../shared/domain/events';

describe('the local events file', () => {
  it('is created readable by its owner only, one EventBridge-shaped line per event', async () => {
    // Prepare: a file that does not exist yet, in a folder that does not either.
    const path = join(mkdtempSync(join(tmpdir(), 'file-sink-')), '.relay', 'events.ndjson');
    const sink = new FileEventSink(path, 'mobile-money.relay');
    const event = buildEvent(
      'TransactionSucceeded',
      'momo:demo:1',
      'SUCCEEDED',
      'callback',
      '2026-11-21T10:00:00.000Z',
      {
        reference: '1',
      },
    );

    // Act
    await sink.publish([event]);

    // Assess: an event carries the party's whole number, so nobody else on the machine reads it.
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l)['detail-type'])).toEqual(['TransactionSucceeded']);
  });

  it('narrows a file from before (mode 644) to its owner on the first publish', async () => {
    // Prepare
    const path = join(mkdtempSync(join(tmpdir(), 'file-sink-')), 'events.ndjson');
    writeFileSync(path, '', { mode: 0o644 });
    const sink = new FileEventSink(path, 'mobile-money.relay');
    // Act
    await sink.publish([
      buildEvent('TransactionFailed', 'momo:demo:2', 'FAILED', 'callback', '2026-11-21T10:00:00.000Z', {}),
    ]);
    // Assess
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});
