/**
 * The README is executed (issue 19 item 1). The README's and the provider READMEs' shell blocks carry a
 * `<!-- docs-check: … -->` marker (test/docs/markdown.ts): their commands run here against `npm start`
 * (plain, or `-- --simulator`) exactly as written, ports and the events file rewritten the same way for every
 * block (test/docs/runner.ts), and each outcome they promise is checked. Every `npm run sim` example in the
 * docs (README, docs/, the simulator's READMEs) runs against the simulator relay.
 *
 * Under tsx a process spends most of its CPU loading the code: the `npm run sim` examples but the first
 * run a bundle of the same entry point instead (test/helpers/bundled-script.ts, which refuses when the
 * script is more than tsx running that file); the first runs package.json's own command, so that path
 * stays checked. `npm start` runs as package.json says: most of its CPU is DynamoDB Local's JVM, and a
 * bundle saved about 0.5 s of its 11 s.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../local/dynamodb-local';
import { killChildren, ROOT, runTs, type Started, waitFor } from '../helpers/child-process';
import { bundledScript } from '../helpers/bundled-script';
import { type Block, type Command, isShell, readBlocks, readCommands, type Relay } from '../docs/markdown';
import {
  broken,
  check,
  consoleFragments,
  eventually,
  isRelayStart,
  isSim,
  readings,
  type Result,
  rewrite,
  runAlone,
  Shell,
  type Target,
} from '../docs/runner';
import { inOrder } from '../docs/markdown';
import { atMost } from '../helpers/at-most';

/** Files whose every shell block says whether and how it runs. */
const MARKED = [
  'README.md',
  'shared/providers/momo/README.md',
  'shared/providers/airtel/README.md',
  'shared/providers/daraja/README.md',
];

function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return markdownUnder(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** Where the `npm run sim` examples are looked for. */
const SIM_DOCS = [...MARKED, ...markdownUnder('simulator'), ...markdownUnder('docs')];

const blocksOf = (file: string) => readBlocks(join(ROOT, file));
const where = (b: Block) => `${relative(ROOT, b.file)}:${b.line}`;

/**
 * Transcript lines of a doc that promise what `npm run sim` no longer prints, each with what it prints now:
 * their examples are expected to fail until the excerpt is fixed (empty: every excerpt holds).
 */
const STALE: Record<string, string> = {};

interface SimExample {
  where: string[];
  command: Command;
  stale?: string;
}

/**
 * Every `npm run sim` example (bash lines, and `$ npm run sim …` transcripts anywhere) except in skipped
 * blocks; one run per command, checking every promise the docs make about it.
 */
function simExamples(): SimExample[] {
  const byKey = new Map<string, SimExample>();
  for (const file of SIM_DOCS)
    for (const block of blocksOf(file)) {
      if (block.marker?.kind === 'skip' || block.marker?.kind === 'console') continue;
      const transcript = /^\s*\$ npm run sim/m.test(block.text);
      if (!isShell(block) && !transcript) continue;
      for (const command of readCommands(block)) {
        if (!isSim(command.text)) continue;
        const stale = command.lines.map((l) => STALE[l]).find(Boolean);
        const key = `${command.text}${stale ? ' (stale)' : ''}`;
        const seen = byKey.get(key);
        if (!seen) {
          byKey.set(key, { where: [`${file}:${command.line}`], command: { ...command }, stale });
          continue;
        }
        seen.where.push(`${file}:${command.line}`);
        seen.command.events = [...new Set([...seen.command.events, ...command.events])];
        seen.command.lines = [...new Set([...seen.command.lines, ...command.lines])];
      }
    }
  return [...byKey.values()];
}

interface Running {
  relay: Started;
  target: Target;
  shells: Map<string, Shell>;
}

const relays = new Map<Relay, Running>();

/**
 * An idle `npm start` costs CPU the whole time it runs (its poller's cycles, its stream pump's polls and
 * DynamoDB Local answering them: measured idle, relay and JVM together, about 0.05 s of CPU a second plain
 * and 0.15 s with --simulator, whose poller cycles every second), so each relay lives only as long as its
 * checks need it: the `npm run sim` examples start as soon as the simulator relay answers, beside the blocks
 * (which run one after another), and the plain relay stops after its last block.
 */
const blocksLeft = new Map<Relay, number>();
const passed = new Set<Block>();

async function onRelay(relay: Relay, block: Block, check: () => Promise<void>): Promise<void> {
  await check();
  // Counted once, when it passed: a failed or timed-out attempt is run again (the lane's retry) on the same
  // relay, and one that timed out goes on and may pass later. Counted on every attempt, a retried plain
  // block would stop the plain relay before its last block, which would then fail on a refused connection.
  if (passed.has(block)) return;
  passed.add(block);
  const left = blocksLeft.get(relay)! - 1;
  blocksLeft.set(relay, left);
  // The simulator relay also serves the `npm run sim` examples: afterAll stops it.
  if (left === 0 && relay === 'plain') await stopRelay(relays.get(relay)!.relay);
}

/** npm start, again if it gave up at startup (its DynamoDB Local calls time out after 1.5 s on a busy machine). */
async function startRelay(kind: Relay): Promise<Running> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRelayOnce(kind);
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

async function startRelayOnce(kind: Relay): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), `docs-check-${kind}-`));
  mkdirSync(join(dir, '.relay'));
  const eventsFile = join(dir, '.relay/events.ndjson');
  const config = join(dir, 'relay.json');
  const demo = JSON.parse(readFileSync(join(ROOT, 'local/demo-config.json'), 'utf8'));
  writeFileSync(config, JSON.stringify({ ...demo, local: { ...demo.local, eventsFile } }));
  const port = await freePort();
  const simPort = kind === 'simulator' ? await freePort() : undefined;
  const args = ['--port', String(port), '--config', config];
  if (simPort) args.push('--simulator', '--sim-port', String(simPort));
  const relay = runTs('local/start.ts', args, {
    SIM_PORT: '',
    SIM_TIME_SCALE: '',
    SIM_APPROVAL_DELAY_MS: '',
  });
  try {
    await waitFor(
      () => relay.output().includes('Ctrl-C to stop') || relay.child.exitCode !== null,
      90_000,
      relay.output,
    );
  } catch (error) {
    await stopRelay(relay);
    throw error;
  }
  if (relay.child.exitCode !== null) throw new Error(`npm start exited:\n${relay.output()}`);
  writeFileSync(eventsFile, '', { flag: 'a' });
  const target: Target = {
    relayUrl: `http://localhost:${port}`,
    simUrl: simPort ? `http://127.0.0.1:${simPort}` : undefined,
    eventsFile,
    config,
  };
  return { relay, target, shells: new Map() };
}

function shellFor(running: Running, file: string): Shell {
  let shell = running.shells.get(file);
  if (!shell || shell.closed) running.shells.set(file, (shell = new Shell()));
  return shell;
}

const eventTypes = (text: string) => [...text.matchAll(/"detail-type":"(\w+)"/g)].map((m) => m[1]!);

async function runBlock(block: Block, relay: Relay, events: string[]): Promise<void> {
  const running = relays.get(relay)!;
  const t = running.target;
  const shell = shellFor(running, block.file);
  const offset = readFileSync(t.eventsFile, 'utf8').length;
  for (const command of readCommands(block)) {
    if (isSim(command.text)) continue; // run with the other `npm run sim` examples, below
    if (isRelayStart(command.text)) {
      // The relay this block needs is the one started for it; the block must say which one that is.
      expect(command.text.includes('--simulator'), `${where(block)}: ${command.text}`).toBe(
        relay === 'simulator',
      );
      continue;
    }
    try {
      await check(shell, command, t, 20_000);
    } catch (error) {
      // What the relay logged is what tells a slow status check from a lost callback.
      const log = running.relay.output().slice(-6_000);
      throw new Error(`${(error as Error).message}\n--- npm start's last output ---\n${log}`, {
        cause: error,
      });
    }
  }
  await eventually(() => {
    const seen = eventTypes(readFileSync(t.eventsFile, 'utf8').slice(offset));
    const missing = events.filter((e) => !seen.includes(e));
    return missing.length
      ? `${where(block)}: no ${missing.join(', ')} among the new events (${seen.join(', ') || 'none'})`
      : undefined;
  }, 20_000);
}

async function consoleBlock(block: Block, relay: Relay): Promise<void> {
  const running = relays.get(relay)!;
  const lines = block.text.split('\n').filter((l) => l.trim() && l.trim() !== '...');
  await eventually(() => {
    const output = running.relay.output();
    const missing = lines.filter(
      (l) => !readings(consoleFragments(l, running.target)).some((r) => inOrder(output, r)),
    );
    return missing.length
      ? `${where(block)}: the relay's console shows no line like:\n${missing.join('\n')}\n--- console:\n${output}`
      : undefined;
  }, 20_000);
}

/**
 * SIGTERM first: npm start then stops DynamoDB Local, whose JVM runs in a process group of its own and would
 * outlive a SIGKILL of the relay's group.
 */
async function stopRelay(relay: Started): Promise<void> {
  if (relay.child.exitCode !== null || relay.child.signalCode !== null) return;
  relay.child.kill('SIGTERM');
  await Promise.race([relay.exited, new Promise((r) => setTimeout(r, 20_000))]);
}

afterAll(async () => {
  for (const running of relays.values()) for (const shell of running.shells.values()) shell.close();
  await Promise.all([...relays.values()].map((running) => stopRelay(running.relay)));
  killChildren();
}, 30_000);

/**
 * How long an example waits on the relay's own schedule, as its command says: `--expires <s>` waits out
 * the window; `--fault drop` waits for the relay's next status check or pull. For the order they start in.
 */
function expectedWaitS(command: string): number {
  const expires = /--expires\s+(\d+)/.exec(command);
  if (expires) return Number(expires[1]);
  return /--fault\s+drop\b/.test(command) ? 10 : 0;
}

describe('the docs, executed against npm start', () => {
  it('every shell block in the README and the provider READMEs says whether and how it runs', () => {
    const unmarked = MARKED.flatMap((file) =>
      blocksOf(file)
        .filter((b) => isShell(b) && !b.marker)
        .map(where),
    );
    expect(unmarked, 'add <!-- docs-check: run relay=… --> or <!-- docs-check: skip <reason> -->').toEqual(
      [],
    );
  });

  const examples = simExamples().map((example, i) => ({
    ...example,
    run: undefined as Promise<{ text: string; result: Result }> | undefined,
    attempts: 0,
    /** What `npm run sim` stands for: package.json's script for the first example, its bundle for the rest. */
    scripts: {} as Record<string, string>,
    real: i === 0,
  }));
  beforeAll(async () => {
    // Each scenario is a node process driving the one relay and its DynamoDB Local: more at a time only
    // makes each slower on two cores, and a slower relay changes which report wins a race (a status check
    // before a late callback), not just how long the run takes.
    const three = atMost(3);
    const sim = bundledScript('sim');
    const simulator = startRelay('simulator').then(async (running) => {
      relays.set('simulator', running);
      const bundled = { sim: (await sim).command };
      for (const example of examples) if (!example.real) example.scripts = bundled;
      // Started here, checked by their tests below (after the blocks, which run meanwhile); those that wait
      // longest first, so that the last to end is a short one and the relay is not kept for one long wait.
      for (const example of [...examples].sort(
        (a, b) => expectedWaitS(b.command.text) - expectedWaitS(a.command.text),
      )) {
        const text = rewrite(example.command.text, running.target, example.scripts);
        example.run = three(() => runAlone(text, 150_000)).then((result) => ({ text, result }));
      }
    });
    const plain = startRelay('plain').then((running) => void relays.set('plain', running));
    await Promise.all([simulator, plain]);
  }, 180_000);

  for (const file of MARKED)
    for (const block of blocksOf(file)) {
      const m = block.marker;
      if (m?.kind === 'run' || m?.kind === 'console')
        blocksLeft.set(m.relay, (blocksLeft.get(m.relay) ?? 0) + 1);
      if (m?.kind === 'run')
        it(
          `${where(block)} runs on npm start${m.relay === 'simulator' ? ' -- --simulator' : ''}`,
          () => onRelay(m.relay, block, () => runBlock(block, m.relay, m.events)),
          180_000,
        );
      if (m?.kind === 'console')
        it(
          `${where(block)} shows on the console of npm start${m.relay === 'simulator' ? ' -- --simulator' : ''}`,
          () => onRelay(m.relay, block, () => consoleBlock(block, m.relay)),
          30_000,
        );
    }

  for (const example of examples) {
    const { where: at, command, stale, real } = example;
    const test = stale ? it.concurrent.fails : it.concurrent;
    const as = real ? ' (as package.json runs it)' : '';
    test(`${at.join(', ')} ${command.text}${as}${stale ? ` (stale in the doc: ${stale})` : ''}`, async () => {
      // The first attempt reads the run started beside the blocks; a retry (the lane's retry: 1) runs the
      // scenario again rather than judging the same output twice.
      const first = example.attempts++ === 0;
      const target = relays.get('simulator')!.target;
      const { text, result } = first
        ? await example.run!
        : await (async () => {
            const text = rewrite(example.command.text, target, example.scripts);
            return { text, result: await runAlone(text, 150_000) };
          })();
      const problems = broken(command, result, relays.get('simulator')!.target);
      expect(problems, `ran: ${text}\n${result.output}`).toEqual([]);
    }, 400_000);
  }
});
