import { describe, expect, it } from 'vitest';
import { anchorsOf, inOrder, parsePromise, readBlocks, readCommands } from './markdown';
import { perRun, rewrite } from './runner';

const doc = [
  '<!-- docs-check: run relay=plain events=TransactionAmbiguous -->',
  '```bash',
  'REF=$(node -p "1")',
  'curl -s -X POST http://localhost:3000/v1/transactions \\',
  '  -d \'{"a":1}\'',
  '# → 201 {"transaction":{…"status":"PENDING"…}   (commentary)',
  '#   prose, not a promise',
  'npm run sim -- momo pay --expires 15   # → TransactionExpired (late TransactionFailed at 30 s)',
  '```',
  '',
  '```',
  '$ npm run sim -- daraja reversal',
  '  TransactionReversed …',
  '✔ as expected: receipt L5S3KM0IJO, ReceiverParty 174379 → TransactionReversed',
  '```',
].join('\n');

describe('docs check: reading markdown', () => {
  const blocks = readBlocks('doc.md', doc);

  it('reads the marker before a fence', () => {
    expect(blocks[0]!.marker).toEqual({ kind: 'run', relay: 'plain', events: ['TransactionAmbiguous'] });
    expect(blocks[1]!.marker).toBeUndefined();
  });

  it('joins continuation lines and attaches the promise under a command', () => {
    const [ref, curl, sim] = readCommands(blocks[0]!);
    expect(ref!.text).toBe('REF=$(node -p "1")');
    expect(curl!.text).toContain('\\\n  -d');
    expect(curl!.status).toBe(201);
    expect(curl!.output).toEqual(['{"transaction":{', '"status":"PENDING"', '}']);
    expect(sim!.text).toBe('npm run sim -- momo pay --expires 15');
    expect(sim!.events).toEqual(['TransactionExpired']);
  });

  it('reads a transcript: the command and its ✔ line, per-run values matching anything', () => {
    const [reversal] = readCommands(blocks[1]!);
    expect(reversal!.text).toBe('npm run sim -- daraja reversal');
    const fragments = perRun(reversal!.lines[0]!);
    expect(
      inOrder('✔ as expected: receipt OT7LG6RBEX, ReceiverParty 174379 → TransactionReversed', fragments),
    ).toBe(true);
  });

  it('a promise without status is output only', () => {
    expect(parsePromise('"detail-type":"A"…"detail-type":"B"')).toEqual({
      status: undefined,
      output: ['"detail-type":"A"', '"detail-type":"B"'],
    });
  });

  it('rewrites ports, the events file and npm run sim the same way everywhere', () => {
    const t = {
      relayUrl: 'http://localhost:41000',
      simUrl: 'http://127.0.0.1:42000',
      eventsFile: '/tmp/x/.relay/events.ndjson',
      config: '/tmp/x/relay.json',
    };
    expect(rewrite('curl -s localhost:3000/v1/x http://127.0.0.1:4010/y .relay/events.ndjson', t)).toBe(
      'curl -s localhost:41000/v1/x http://127.0.0.1:42000/y /tmp/x/.relay/events.ndjson',
    );
    expect(rewrite('npm run sim -- momo pay', t)).toBe(
      'node --import tsx scripts/sim.ts --relay http://localhost:41000 --sim http://127.0.0.1:42000 --config /tmp/x/relay.json momo pay',
    );
  });

  it('names the anchors of headings as GitHub does, repeats numbered, fenced lines not headings', () => {
    // Prepare
    const text = [
      '# Mobile-money callback relay',
      '## Checking URLs: `npm run check-urls`',
      '## What `--simulator` wires',
      '### More',
      '### More',
      '```bash',
      '# not a heading',
      '```',
      '<a id="own-anchor"></a>',
    ].join('\n');
    // Act
    const anchors = anchorsOf(text);
    // Assess
    expect([...anchors]).toEqual([
      'mobile-money-callback-relay',
      'checking-urls-npm-run-check-urls',
      'what---simulator-wires',
      'more',
      'more-1',
      'own-anchor',
    ]);
  });
});
