/**
 * A doc that reads the events file right after causing an event waits for it first (issue 27 item 11: the
 * README's plain-start block grepped before the event was written, and 2 of 5 pasted runs printed
 * nothing). The docs check (test/e2e/readme.test.ts) runs these reads once, as pasted; this finds a read
 * without its wait in any doc, whether the check runs the block or not.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/child-process';
import { type Block, isShell, readBlocks, readCommands } from './markdown';
import { readsEvents, waitsForEvent } from './runner';

function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return markdownUnder(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** Reads of the events file with no wait for the event before them in their block, as `file:line`. */
function unwaitedReads(blocks: Block[]): string[] {
  return blocks
    .filter((b) => isShell(b) && b.marker?.kind !== 'skip')
    .flatMap((block) => {
      const commands = readCommands(block);
      return commands
        .filter((c, i) => readsEvents(c.text) && !commands.slice(0, i).some((w) => waitsForEvent(w.text)))
        .map((c) => `${relative(ROOT, block.file)}:${c.line}: ${c.text}`);
    });
}

const DOCS = ['README.md', ...['docs', 'shared/providers', 'simulator'].flatMap(markdownUnder)];

describe('reading the events file in the docs', () => {
  it('finds a grep of the events file with no wait before it, and accepts one after the wait', () => {
    // Prepare
    const read = `grep "$REF" .relay/events.ndjson | grep -o '"detail-type":"[A-Za-z]*"'`;
    const wait =
      'end=$((SECONDS + 60)); until grep -s "$REF" .relay/events.ndjson | grep -q TransactionAmbiguous || [ $SECONDS -ge $end ]; do sleep 0.5; done';
    const doc = (lines: string[]) => readBlocks('doc.md', ['```bash', ...lines, '```'].join('\n'));
    // Act
    const bare = unwaitedReads(doc(['curl -s -X PUT http://localhost:3000/v1/momo/demo/x', read]));
    const waited = unwaitedReads(doc(['curl -s -X PUT http://localhost:3000/v1/momo/demo/x', wait, read]));
    // Assess
    expect(bare).toHaveLength(1);
    expect(waited).toEqual([]);
  });

  it('every doc that reads the events file waits for the event first, in bash pasted as is', () => {
    // Act
    const unwaited = DOCS.flatMap((file) => unwaitedReads(readBlocks(join(ROOT, file))));
    // Assess
    expect(unwaited).toEqual([]);
  });
});
