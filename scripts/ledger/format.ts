/** How the ledger and the progress line are printed. Pure. */
import type { Ledger } from './accounting';

export interface RunFacts {
  /** Transactions asked for. */
  planned: number;
  /** Could not be started (the provider or the relay refused): named, they break the ledger too. */
  notStarted: string[];
  /** Fault knobs as drawn: how many transactions got each. */
  faults: { drop: number; duplicate: number; status5xx: number; neverFinal: number };
  byFlow: Record<string, number>;
  /** From the simulator's callback log: callbacks delivered and dropped for these transactions. */
  callbacks?: { delivered: number; dropped: number };
  initiateMs: number;
  waitMs: number;
  seed: number;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** `openByFlow`: what the open ones are (a person waiting wants to know which provider holds the run). */
export function progressLine(
  ledger: Ledger,
  elapsedMs: number,
  openByFlow: Record<string, number> = {},
): string {
  const final = ledger.succeeded + ledger.failed + ledger.expired;
  const which = Object.entries(openByFlow)
    .filter(([, n]) => n > 0)
    .map(([flow, n]) => `${flow} ${n}`)
    .join(', ');
  return (
    `registered ${ledger.registered} · final ${final} (succeeded ${ledger.succeeded}, failed ${ledger.failed}, ` +
    `expired ${ledger.expired}) · still open ${ledger.open.length}${which ? ` (${which})` : ''}` +
    (ledger.lost.length ? ` · lost ${ledger.lost.length}` : '') +
    ` · ${seconds(elapsedMs)}`
  );
}

function mark(ok: boolean): string {
  return ok ? '✔' : '✖';
}

export function formatLedger(ledger: Ledger, facts: RunFacts): string {
  const final = ledger.succeeded + ledger.failed + ledger.expired;
  const origins = Object.entries(ledger.byOrigin)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([origin, n]) => `${origin} ${n}`)
    .join(', ');
  const flows = Object.entries(facts.byFlow)
    .map(([flow, n]) => `${flow} ${n}`)
    .join(', ');
  const equation =
    `${ledger.registered} = ${ledger.succeeded} succeeded + ${ledger.failed} failed + ${ledger.expired} expired` +
    (ledger.open.length ? ` + ${ledger.open.length} still in window` : '') +
    (ledger.lost.length ? ` + ${ledger.lost.length} lost` : '');
  const lines = [
    '',
    'Ledger',
    `  transactions      ${facts.planned} planned (${flows}), seed ${facts.seed}`,
    `  faults drawn      drop ${facts.faults.drop}, duplicate ${facts.faults.duplicate}, status-5xx ${facts.faults.status5xx}; never final (short window) ${facts.faults.neverFinal}`,
    ...(facts.callbacks
      ? [
          `  simulator         ${facts.callbacks.delivered} callbacks delivered, ${facts.callbacks.dropped} dropped`,
        ]
      : []),
    `  registered        ${ledger.registered}${facts.notStarted.length ? ` (${facts.notStarted.length} could not be started)` : ''}`,
    `  ${mark(ledger.registered === final + ledger.open.length + ledger.lost.length)} balance         ${equation}`,
    `  ${mark(ledger.duplicates.length === 0)} one final each  ${final - ledger.duplicates.length} of ${final} with exactly one final event; duplicates ${ledger.duplicates.length}`,
    `    late resolutions ${ledger.lateResolutions} (a final answer after EXPIRED, counted apart); repeated event lines ${ledger.repeatedLines} (same metadata.id, deduplicated)`,
    `  ${mark(ledger.lost.length === 0)} lost            ${ledger.lost.length}`,
    `  ${mark(ledger.open.length === 0)} still open      ${ledger.open.length}`,
    `  ${mark(ledger.wrongOutcome.length === 0)} outcomes        ${final - ledger.wrongOutcome.length} of ${final} as the simulator's number says; wrong ${ledger.wrongOutcome.length}`,
    `  ${mark(ledger.wrongOrigin.length === 0)} origins         ${origins || 'none'}; dropped or unconfirmed finalized by a callback: ${ledger.wrongOrigin.length}`,
    `  ${mark(ledger.relayDisagrees.length === 0)} relay agrees    GET status = the events for ${(ledger.statusCalls?.read ?? 0) - ledger.relayDisagrees.length} of ${ledger.statusCalls?.read ?? 0} read; disagreements ${ledger.relayDisagrees.length}`,
    ledger.timeToFinal
      ? `    time to final   p50 ${seconds(ledger.timeToFinal.p50)}, p95 ${seconds(ledger.timeToFinal.p95)}, max ${seconds(ledger.timeToFinal.max)} (${ledger.timeToFinal.count} succeeded/failed, from initiation)`
      : '    time to final   (none)',
    ledger.statusCalls
      ? `    status calls    ${ledger.statusCalls.total} in all, ${ledger.statusCalls.perTransaction.toFixed(2)} per transaction, max ${ledger.statusCalls.max} (reconciliation.statusChecks)`
      : '    status calls    (not read)',
    `    run time        initiating ${seconds(facts.initiateMs)}, waiting ${seconds(facts.waitMs)}`,
    '',
  ];
  const problems = [...facts.notStarted.map((p) => `not started: ${p}`), ...ledger.problems];
  if (problems.length === 0 && ledger.balanced) {
    lines.push(
      `✔ the ledger balances: ${ledger.registered} registered, ${final} final, 0 duplicates, 0 lost`,
    );
  } else {
    lines.push(
      `✖ the ledger does not balance (${problems.length} problem${problems.length === 1 ? '' : 's'}):`,
    );
    for (const p of problems) lines.push(`  - ${p}`);
  }
  return lines.join('\n');
}
