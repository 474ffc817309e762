/**
 * One ledger run: plan the transactions, initiate them as a partner does (the `npm run sim` scenario code:
 * provider token, registration with the relay, the provider request with its X-Sim-Fault) with bounded
 * concurrency, wait until each has its final event or its window has ended, read the relay's view of
 * each, and account. The CLI (scripts/ledger.ts) and the end-to-end test both call `runLedger`.
 */
import { resolve } from 'node:path';
import { loadConfig } from '../../shared/config/load';
import type { RelayConfig } from '../../shared/config/schema';
import { parseFaults } from '../../simulator/core/faults';
import {
  type RelayTransactionView,
  relayTransaction,
  ScenarioError,
  type SimContext,
  simulatorInfo,
  simulatorSettings,
  simUrl,
} from '../sim/core';
import { type EventFeed, openEventsFile, relayStreamCaughtUp } from '../sim/events';
import { findScenario } from '../sim/run';
import { account, type Ledger, type LedgerEntry } from './accounting';
import { formatLedger, progressLine, type RunFacts } from './format';
import { type PlannedTransaction, type PlanOptions, planTransactions, seededRandom } from './plan';
import { type Stack, type StackOptions, startStack } from './stack';

const DEMO_CONFIG = resolve(import.meta.dirname, '../../local/demo-config.json');

export interface LedgerRunOptions extends PlanOptions {
  /** A running relay and simulator; both undefined: self-starting. */
  relayUrl?: string;
  simUrl?: string;
  adminToken: string;
  configPath?: string;
  /** External mode: the relay's events file (default: the config's local.eventsFile). */
  eventsFile?: string;
  concurrency: number;
  seed: number;
  /** The longest the run waits for outcomes after initiating, ms. */
  maxWaitMs: number;
  /** A window's end plus this without TransactionExpired: lost. */
  marginMs: number;
  /** Once every transaction is final, wait this long more for stray duplicates. */
  lingerMs: number;
  /** Self-starting mode: an existing DynamoDB Local. */
  dynamoEndpoint?: string;
  /** Self-starting mode: the poller's time scale and cycle (StackOptions.reconciliation). */
  reconciliation?: StackOptions['reconciliation'];
  /** A stack started by the caller (`npm run ledger:day`), used as is and left running. */
  stack?: Stack;
  /** Progress, for people (a line every few seconds). */
  onProgress?(line: string): void;
  /** Notes before the ledger (what was started, where). */
  onNote?(line: string): void;
}

export interface LedgerRunResult {
  ledger: Ledger;
  facts: RunFacts;
  balanced: boolean;
  /** The printed ledger. */
  text: string;
  eventsFile: string;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs `work` over `items` with at most `limit` at once. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(workers);
}

/** MoMo successes are unsigned: with confirmSuccess (on by default for MoMo) a status call confirms them. */
function confirmsSuccess(config: RelayConfig, provider: string, accountId: string): boolean {
  const settings = config.accounts.get(`${provider}/${accountId}`)?.settings as
    { confirmSuccess?: boolean } | undefined;
  return settings?.confirmSuccess ?? provider === 'momo';
}

function describe(p: PlannedTransaction): string {
  return `#${p.n} ${p.flow}, ${p.outcome}${p.faults ? `, faults ${p.faults}` : ''}${p.options.expires ? `, expires ${p.options.expires} s` : ''}`;
}

export async function runLedger(options: LedgerRunOptions): Promise<LedgerRunResult> {
  const note = options.onNote ?? (() => {});
  let stack: Stack | undefined;
  let config: RelayConfig;
  let relayUrl: string;
  let simulatorUrl: string;
  let eventsFile: string;
  if (options.stack) {
    ({ config, relayUrl, simUrl: simulatorUrl, eventsFile } = options.stack);
  } else if (options.relayUrl) {
    if (!options.simUrl) throw new ScenarioError('--relay needs --sim (where the relay is wired to)');
    config = await loadConfig(
      options.configPath ? { ...process.env, RELAY_CONFIG: options.configPath } : process.env,
      DEMO_CONFIG,
    );
    relayUrl = options.relayUrl;
    simulatorUrl = options.simUrl;
    eventsFile = resolve(options.eventsFile ?? config.local.eventsFile);
  } else {
    note('starting DynamoDB Local, the relay and the simulator (as npm start -- --simulator) …');
    stack = await startStack({
      dynamoEndpoint: options.dynamoEndpoint,
      configPath: options.configPath,
      ...(options.reconciliation ? { reconciliation: options.reconciliation } : {}),
    });
    ({ config, relayUrl, simUrl: simulatorUrl, eventsFile } = stack);
    note(`relay ${relayUrl}, simulator ${simulatorUrl}, events ${eventsFile}`);
  }
  try {
    return await drive(options, { config, relayUrl, simulatorUrl, eventsFile }, note);
  } finally {
    await stack?.stop();
  }
}

interface Target {
  config: RelayConfig;
  relayUrl: string;
  simulatorUrl: string;
  eventsFile: string;
}

async function drive(
  options: LedgerRunOptions,
  target: Target,
  note: (line: string) => void,
): Promise<LedgerRunResult> {
  // Opened before anything starts: only events of this run are read.
  const feed: EventFeed = await openEventsFile(target.eventsFile, relayStreamCaughtUp(target.relayUrl));
  const ctx: SimContext = {
    relayUrl: target.relayUrl,
    simUrl: target.simulatorUrl,
    adminToken: options.adminToken,
    config: target.config,
    events: feed,
    timeoutMs: 0,
    pollMs: 250,
  };
  const [info, settings] = [await simulatorInfo(ctx), await simulatorSettings(ctx)];
  const plan = planTransactions(
    options,
    {
      momoSandboxBase: info.momo.sandboxMsisdnBase,
      momoApprovalWindowMs: settings.momo.approvalWindowMs * settings.timeScale,
    },
    seededRandom(options.seed),
  );

  const facts: RunFacts = {
    planned: plan.length,
    notStarted: [],
    faults: { drop: 0, duplicate: 0, status5xx: 0, neverFinal: 0 },
    byFlow: {},
    initiateMs: 0,
    waitMs: 0,
    seed: options.seed,
  };
  for (const p of plan) {
    const f = parseFaults(p.faults);
    if (f.drop) facts.faults.drop++;
    if (f.repeat) facts.faults.duplicate++;
    if (f.status5xx) facts.faults.status5xx++;
    if (p.intent === 'never-final') facts.faults.neverFinal++;
    facts.byFlow[p.flow] = (facts.byFlow[p.flow] ?? 0) + 1;
  }

  // ---- initiate ----
  note(`initiating ${plan.length} transactions, ${options.concurrency} at a time …`);
  const entries: LedgerEntry[] = [];
  const flowOf = new Map<string, string>();
  const simReferences = new Set<string>();
  const initiateStarted = Date.now();
  await pool(plan, options.concurrency, async (p) => {
    const [provider, name] = p.flow.split(' ') as [string, string];
    const startedAt = Date.now();
    try {
      const started = await findScenario(provider, name).start(ctx, p.options);
      const view = await relayTransaction(ctx, started.provider, started.account, started.reference);
      const until = view?.reconciliation?.reconcileUntil;
      if (!view || !until) throw new ScenarioError('the relay has no such transaction after registering it');
      if (started.expectation.status !== p.expected) {
        // The scenario's own expectation (outcome tables, faults, window) must agree with the plan.
        facts.notStarted.push(
          `${describe(p)}: the scenario expects ${started.expectation.status ?? 'no status'}, the plan ${p.expected}`,
        );
        return;
      }
      simReferences.add(started.simReference);
      flowOf.set(`${started.provider}/${started.account}/${started.reference}`, p.flow);
      const dropped = parseFaults(p.faults).drop === true;
      entries.push({
        key: `${started.provider}/${started.account}/${started.reference}`,
        label: describe(p),
        expected: p.expected,
        viaPoll:
          p.expected !== 'EXPIRED' &&
          (dropped ||
            (p.expected === 'SUCCEEDED' &&
              confirmsSuccess(target.config, started.provider, started.account))),
        startedAt,
        windowEndsAt: Date.parse(until),
      });
    } catch (error) {
      facts.notStarted.push(`${describe(p)}: ${(error as Error).message}`);
    }
  });
  facts.initiateMs = Date.now() - initiateStarted;
  note(
    `initiated ${entries.length} of ${plan.length} in ${(facts.initiateMs / 1000).toFixed(1)} s; waiting for their outcomes …`,
  );

  // ---- wait ----
  const waitStarted = Date.now();
  const envelopes = async () => (await feed.read()).map((f) => f.envelope);
  let lastPrinted = 0;
  let allFinalAt: number | undefined;
  for (;;) {
    const now = Date.now();
    const ledger = account(entries, await envelopes(), now, { marginMs: options.marginMs });
    if (now - lastPrinted >= 5000 || (ledger.open.length === 0 && allFinalAt === undefined)) {
      const openByFlow: Record<string, number> = {};
      for (const key of ledger.open) {
        const flow = flowOf.get(key) ?? '?';
        openByFlow[flow] = (openByFlow[flow] ?? 0) + 1;
      }
      options.onProgress?.(progressLine(ledger, now - waitStarted, openByFlow));
      lastPrinted = now;
    }
    if (ledger.open.length === 0) {
      allFinalAt ??= now;
      if (now - allFinalAt >= options.lingerMs) break;
    }
    if (now - waitStarted >= options.maxWaitMs) {
      note(`stopped waiting after ${Math.round(options.maxWaitMs / 1000)} s (--max-wait)`);
      break;
    }
    await sleep(500);
  }
  await feed.settle();
  facts.waitMs = Date.now() - waitStarted;

  // ---- the relay's view and the simulator's log ----
  // A late answer (after EXPIRED) may land while the views are read: read again until the events
  // did not move during the reading, so the views and the events describe the same moment.
  let finalEnvelopes = await envelopes();
  for (let attempt = 0; attempt < 5; attempt++) {
    await pool(entries, options.concurrency, async (entry) => {
      const [provider, accountId, ...rest] = entry.key.split('/');
      let view: RelayTransactionView | undefined;
      try {
        view = await relayTransaction(ctx, provider!, accountId!, rest.join('/'));
      } catch {
        view = undefined;
      }
      if (view) entry.relay = { status: view.status, statusChecks: view.reconciliation?.statusChecks ?? 0 };
    });
    await feed.settle();
    const after = await envelopes();
    const moved = after.length !== finalEnvelopes.length;
    finalEnvelopes = after;
    if (!moved) break;
  }
  try {
    const response = await fetch(simUrl(ctx, '/_sim/callbacks'));
    const log = (await response.json()) as { reference: string; outcome: string }[];
    const mine = log.filter((c) => simReferences.has(c.reference));
    facts.callbacks = {
      delivered: mine.filter((c) => c.outcome === 'delivered').length,
      dropped: mine.filter((c) => c.outcome === 'dropped').length,
    };
  } catch {
    // the simulator's log is a nicety
  }

  const ledger = account(entries, finalEnvelopes, Date.now(), {
    marginMs: options.marginMs,
    runEnded: true,
  });
  const balanced = ledger.balanced && facts.notStarted.length === 0;
  return { ledger, facts, balanced, text: formatLedger(ledger, facts), eventsFile: target.eventsFile };
}
