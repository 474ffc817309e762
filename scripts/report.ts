/**
 * `npm run report -- [--from ISO] [--to ISO] [--relay URL] [--token T] [--json]`: the reconciliation
 * report of a running relay (GET /v1/reconciliation/report), printed for a person on call.
 */
import type { ReconciliationReport as Report } from '../shared/app/management-answers';
import { parseCli } from './cli';

const USAGE =
  'Usage: npm run report -- [--from 2026-11-23T00:00:00Z] [--to …] [--relay http://localhost:3000] [--token demo-admin-token] [--json]\n' +
  'Counts transactions created in the range by status and settling origin, and lists what a person must act on.\n';

const { values } = parseCli(USAGE, {
  options: {
    from: { type: 'string' },
    to: { type: 'string' },
    relay: { type: 'string', default: process.env.RELAY_URL ?? 'http://localhost:3000' },
    token: { type: 'string', default: process.env.RELAY_TOKEN ?? 'demo-admin-token' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});

const query = new URLSearchParams();
if (values.from) query.set('from', values.from);
if (values.to) query.set('to', values.to);
const url = `${values.relay!.replace(/\/$/, '')}/v1/reconciliation/report${query.size ? `?${query}` : ''}`;
let response: Response;
try {
  response = await fetch(url, { headers: { authorization: `Bearer ${values.token}` } });
} catch (error) {
  process.stderr.write(
    `Cannot reach the relay at ${values.relay} (${(error as Error).message}); is npm start running?\n`,
  );
  process.exit(2);
}
const body = (await response.json().catch(() => undefined)) as
  Report | { error?: { code?: string; message?: string } } | undefined;
if (!response.ok) {
  const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
  process.stderr.write(
    `✖ The relay answered ${response.status}${error ? ` ${error.code}: ${error.message}` : ''}\n`,
  );
  process.exit(1);
}
const report = body as Report;
if (values.json) {
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  process.exit(0);
}
const seconds = (ms: number | null) => (ms === null ? '–' : `${(ms / 1000).toFixed(1)} s`);
const counts = (r: Record<string, number>) =>
  Object.entries(r)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || 'none';
const out = [
  `Reconciliation report ${report.from} → ${report.to}`,
  `  transactions:   ${report.transactions}`,
  `  by status:      ${counts(report.byStatus)}`,
  `  settled by:     ${counts(report.finalizedBy)}`,
  `  time to final:  p50 ${seconds(report.timeToFinalMs.p50)}, p95 ${seconds(report.timeToFinalMs.p95)}, max ${seconds(report.timeToFinalMs.max)}`,
  `  status calls:   ${report.statusChecks.total} (${report.statusChecks.perTransaction} per transaction)`,
  // One report reads a bounded number of transactions: say when this one is the newest part only.
  ...(report.complete === false
    ? [
        `  partial:        the newest only, created from ${report.reportedFrom}; narrow --from/--to for older ones`,
      ]
    : []),
];
const titles: Record<string, string> = {
  expired: 'Expired (no final answer; look at the provider portal, then resolve by hand)',
  ambiguous: 'Ambiguous (still reconciling)',
  conflicts: 'Conflicts (a report disagreed with the final status)',
  disagreements: 'Verification disagreements (an unsigned success the provider denies: security signal)',
  lateResolutions: 'Late resolutions (a final answer after EXPIRED: money may have moved)',
};
for (const [name, lines] of Object.entries(report.act)) {
  const total = report.truncated?.[name] ?? lines.length;
  out.push('', `${titles[name] ?? name}: ${total}`);
  for (const l of lines.slice(0, 50))
    out.push(
      `  ${l.provider}/${l.account}/${l.reference} ${l.kind} ${l.status} ${l.amount ?? ''} created ${l.createdAt}\n      ${l.detail}`,
    );
  if (lines.length > 50) out.push(`  … ${lines.length - 50} more (--json for all)`);
}
process.stdout.write(`${out.join('\n')}\n`);
