/**
 * The suite's longest files, longest first (vitest.config.ts: LongestFirstSequencer). A group ends when its
 * last file does: a 25-second file that starts near the end leaves the other workers idle while it runs.
 * vitest's own order starts the files that took longest last time first, but it reads them from its results
 * cache (node_modules/.vite), which a fresh clone, CI's, does not have: there files start in glob order.
 * On 2026-12-03 (fresh clone, idle machine) test/e2e/ledger-day.test.ts, 23 s, started 204 s into a 236 s
 * run. A file missing here only starts later; test/unit/architecture/sequencer.test.ts fails on a path
 * that no longer exists. The summary at the end of `npm test` lists the slowest files.
 */
export const STARTS_FIRST: readonly string[] = [
  // cdk lane
  'test/infra/configurations.test.ts',
  'test/package/npm-pack.test.ts',
  'test/infra/scale.test.ts',
  'test/infra/relay-stack.test.ts',
  'test/package/subscriber-kit-pack.test.ts',
  // dynamodb lane
  'test/e2e/relay-simulator.test.ts',
  'test/hostile/hostile-input.test.ts',
  'test/e2e/readme.test.ts',
  'test/browser/console.test.ts',
  'test/e2e/ledger-day.test.ts',
  'test/e2e/callback-health-daraja.test.ts',
  'test/e2e/relay-simulator-npm-start.test.ts',
  'test/e2e/daraja-held-reversal.test.ts',
  'test/browser/time-and-tabs.test.ts',
  'test/integration/dynamodb-local.test.ts',
  'test/e2e/webhook-receiver.test.ts',
  'test/e2e/scripts-help.test.ts',
  'test/e2e/ingress-buffer-outage.test.ts',
  'test/integration/statement-import-batches.test.ts',
  'test/hostile/regressions.test.ts',
  'test/e2e/ledger.test.ts',
  'test/e2e/callback-health.test.ts',
  'test/browser/liveness.test.ts',
  'test/browser/statements.test.ts',
  'test/browser/exports.test.ts',
  'test/e2e/npm-start-stop.test.ts',
  // Files of 5 s and more that spend it waiting (median wall time of four fresh-clone runs, 2026-12-03):
  // unlisted, they started by size and ended the run with the other workers idle (badge-scenarios, 10 s,
  // started 261 s into a 270 s run).
  'test/browser/accountability.test.ts',
  'test/hostile/quarantine-flood.test.ts',
  'test/integration/stream-pump-checkpoint.test.ts',
  'test/integration/due-index.test.ts',
  'test/e2e/badge-scenarios.test.ts',
  'test/integration/statement-close-reads.test.ts',
  'test/e2e/momo-airtel-balances.test.ts',
  'test/e2e/daraja-query-trust.test.ts',
  'test/hostile/new-surfaces.test.ts',
  'test/integration/scheduled-close.test.ts',
  'test/browser/stored-xss.test.ts',
  'test/integration/scheduled-close-reads.test.ts',
  'test/e2e/daraja-receipt-confirmation.test.ts',
  'test/hostile/number-privacy.test.ts',
  'test/hostile/anonymous-budgets.test.ts',
  'test/hostile/route-probes.test.ts',
  'test/browser/story-checks.test.ts',
  'test/browser/destinations.test.ts',
  'test/integration/ack-path-faults.test.ts',
];

/**
 * `files` with those named in `first` moved ahead, in `first`'s order, within each run of files of one
 * project: a worker serves one project's files and is replaced when the next file is another project's
 * (its module cache and, in the dynamodb lane, its DynamoDB Local would go with it), so files never move
 * across projects. The rest keep their order.
 */
export function startFirst<T>(
  files: readonly T[],
  first: readonly string[],
  path: (file: T) => string,
  project: (file: T) => string,
): T[] {
  const rank = new Map(first.map((file, index) => [file, index]));
  const sorted: T[] = [];
  for (let start = 0; start < files.length;) {
    let end = start;
    while (end < files.length && project(files[end]!) === project(files[start]!)) end++;
    const run = files.slice(start, end);
    const listed = run
      .filter((file) => rank.has(path(file)))
      .sort((a, b) => rank.get(path(a))! - rank.get(path(b))!);
    sorted.push(...listed, ...run.filter((file) => !rank.has(path(file))));
    start = end;
  }
  return sorted;
}
