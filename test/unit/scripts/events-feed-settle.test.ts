/**
 * `npm run sim` reads the events file once the relay has published what it wrote (scripts/sim/events.ts):
 * it waits for the relay's stream to catch up after the moment it asks, not for a fixed pause that a
 * loaded machine outlasts (a CI run judged `momo pay` by a file the relay had not finished writing).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openEventsFile } from '../../../scripts/sim/events';

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
    const feed = await openEventsFile(emptyFile(), caughtUp);
    // Act
    await feed.settle();
    // Assess
    expect(looks).toBe(6);
  });

  it('keeps looking while the relay has not caught up even once since it started', async () => {
    // Prepare
    let looks = 0;
    const caughtUp = async () => (++looks < 3 ? null : new Date(Date.now() + 1).toISOString());
    const feed = await openEventsFile(emptyFile(), caughtUp);
    // Act
    await feed.settle();
    // Assess
    expect(looks).toBe(3);
  });

  it('falls back to a pause with a relay that does not say when its stream caught up', async () => {
    // Prepare
    let looks = 0;
    const feed = await openEventsFile(emptyFile(), async () => {
      looks++;
      return undefined;
    });
    // Act
    await feed.settle();
    // Assess: asked once, then paused.
    expect(looks).toBe(1);
  });
});
