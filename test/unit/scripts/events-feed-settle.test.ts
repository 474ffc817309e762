/**
 * `npm run sim` reads the events file once the relay has published what it wrote (scripts/sim/events.ts):
 * it waits for the relay's stream to catch up after the moment it asks, not for a fixed pause that a
 * loaded machine outlasts (a CI run judged `momo pay` by a file the relay had not finished writing).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATCH_UP_POLL_MS, FALLBACK_SETTLE_MS, openEventsFile } from '../../../scripts/sim/events';

/** The pauses `settle()` asked for, in order; each ends at once (the length asked is what is checked). */
function recordedPauses(): { pause: (ms: number) => Promise<void>; pauses: number[] } {
  const pauses: number[] = [];
  return { pauses, pause: async (ms) => void pauses.push(ms) };
}

const emptyFile = () => {
  const path = join(mkdtempSync(join(tmpdir(), 'events-feed-')), 'events.ndjson');
  writeFileSync(path, '');
  return path;
};

describe('the events feed of npm run sim', () => {
  it('settles only once the relay says its stream caught up after the call, however many looks that takes', async () => {
    // Prepare: a relay whose stream is behind for five looks, then caught up.
    let looks = 0;
    const caughtUp = async () => {
      looks++;
      return looks <= 5 ? new Date(0).toISOString() : new Date(Date.now() + 1).toISOString();
    };
    const { pause, pauses } = recordedPauses();
    const feed = await openEventsFile(emptyFile(), caughtUp, pause);
    // Act
    await feed.settle();
    // Assess: a poll's pause between each two looks, none after the last.
    expect(looks).toBe(6);
    expect(pauses).toEqual(Array(5).fill(CATCH_UP_POLL_MS));
  });

  it('keeps looking while the relay has not caught up even once since it started', async () => {
    // Prepare
    let looks = 0;
    const caughtUp = async () => (++looks < 3 ? null : new Date(Date.now() + 1).toISOString());
    const { pause, pauses } = recordedPauses();
    const feed = await openEventsFile(emptyFile(), caughtUp, pause);
    // Act
    await feed.settle();
    // Assess
    expect(looks).toBe(3);
    expect(pauses).toEqual([CATCH_UP_POLL_MS, CATCH_UP_POLL_MS]);
  });

  it('falls back to a pause with a relay that does not say when its stream caught up', async () => {
    // Prepare
    let looks = 0;
    const { pause, pauses } = recordedPauses();
    const feed = await openEventsFile(
      emptyFile(),
      async () => {
        looks++;
        return undefined;
      },
      pause,
    );
    // Act
    await feed.settle();
    // Assess: asked once, then paused.
    expect(looks).toBe(1);
    expect(pauses).toEqual([FALLBACK_SETTLE_MS]);
  });
});
