/**
 * `npm run ledger:day` (docs/statements.md#proof-a-day-that-adds-up): a day of simulated traffic with the
 * ledger's faults (dropped, duplicated callbacks, failing status calls) plus C2B payments whose
 * confirmations are dropped, under the simulator's statement faults (missing, duplicated and late rows, fee
 * rows, a pull failing inside a 200); then the Daraja pull, the simulator's statement imported as an
 * operator uploads it, and each touched business day closed once its SLA has passed (the close runs on a
 * clock moved past the SLA: nothing waits a day). Every break is printed with the injected fault that
 * explains it, found in the simulator's books (the money moved and the rows as served, each marked with its
 * fault) and the run's own plan; a break nothing explains is unexplained, and the run fails.
 */
import { loginName } from '../cli';
import { createDynamoClients } from '../../shared/adapters/dynamodb/client';
import { DynamoStatementStore } from '../../shared/adapters/dynamodb/statement-store';
import { runPullCycle } from '../../shared/app/provider-records/pull-cycle';
import { closeDay } from '../../shared/app/statements/close-day';
import { statementSettings } from '../../shared/app/statements/statement-sink';
import type { DailyCloseReport, StatementBreak } from '../../shared/domain/statement';
import { businessDayOf, businessDaySpan } from '../../shared/domain/statement-match';
import { type LedgerRunOptions, runLedger } from './run';
import { startStack } from './stack';
import { STK_SHORT_CODE } from '../sim/daraja';

/** The simulator's statement faults (simulator/core/books.ts BooksFaults) a day runs under. */
export interface DayFaults {
  missingEvery: number;
  duplicateEvery: number;
  lateEvery: number;
  feePercent: number;
}

export interface DayRunOptions extends Omit<
  LedgerRunOptions,
  'relayUrl' | 'simUrl' | 'eventsFile' | 'stack' | 'configPath'
> {
  /** C2B payments into the short code (their confirmations dropped with probability `drop`). */
  c2b: number;
  books: DayFaults;
  /**
   * Seconds between two balance snapshots (providerRecords.balanceIntervalSeconds, provider time; the
   * simulator's time scale shortens it): default the config's. Short, the day's balance is checked in
   * many intervals, while payments move.
   */
  balanceIntervalSeconds?: number;
  /**
   * The person recorded as closing the days (default: the login name of whoever runs it): a close is a
   * person's act, and only a person's close retires a break (docs/statements.md#a-break-that-no-longer-holds).
   */
  closedBy?: string;
  /** Keep the data in this folder (`npm start -- --simulator --data-dir` then shows the closed days). */
  dataDir?: string;
}

/** The fault kinds a break can be explained by (the proof's vocabulary; docs/statements.md#proof). */
export const FAULT_KINDS = [
  'missing-row',
  'duplicated-row',
  'late-row',
  'fee-row',
  'pull-failure-in-200',
  'callback-dropped',
  'callback-duplicated',
  'status-5xx',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface ExplainedBreak {
  day: string;
  account: string;
  category: StatementBreak['category'];
  subject: string;
  amount?: string;
  /** The injected fault that explains it; undefined: unexplained. */
  fault?: FaultKind;
  why: string;
}

export interface DayRunResult {
  days: DailyCloseReport[];
  breaks: ExplainedBreak[];
  unexplained: number;
  /** How many of each fault were injected, and the breaks each explains. */
  faults: Record<FaultKind, { injected: number; breaks: number }>;
  matchRate: { matched: number; toMatch: number; rate: number | null };
  /** The ledger of verdicts (npm run ledger's own check) balanced. */
  verdictsBalanced: boolean;
  /** Why it did not: each transaction that breaks it (npm run ledger's own words), and any not started. */
  verdictProblems: string[];
  text: string;
}

interface BookRow {
  id: string;
  account: string;
  externalId?: string;
  kind: string;
  time: number;
  amountIn: number;
  amountOut: number;
  /** The payment a fee row belongs to. */
  linkedId?: string;
  fault?: 'duplicate' | 'late' | 'fee';
}

const DARAJA_CONSUMER = 'sim-daraja-consumer-key:sim-daraja-consumer-secret';

async function json<T>(url: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (!response.ok)
    throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export async function runLedgerDay(options: DayRunOptions): Promise<DayRunResult> {
  const note = options.onNote ?? (() => {});
  note('starting DynamoDB Local, the relay and the simulator (as npm start -- --simulator) …');
  const stack = await startStack({
    dynamoEndpoint: options.dynamoEndpoint,
    ...(options.balanceIntervalSeconds !== undefined
      ? { balanceIntervalSeconds: options.balanceIntervalSeconds }
      : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.reconciliation ? { reconciliation: options.reconciliation } : {}),
  });
  try {
    const sim = stack.simUrl;
    const faults = { ...options.books };
    await json(`${sim}/_sim/books/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(faults),
    });
    note(`books faults ${JSON.stringify(faults)}`);
    const started = new Date(Date.now() - 60_000);

    // ---- the day's traffic: the ledger's flows, then C2B payments ----
    const ledger = await runLedger({ ...options, stack });
    // From here the run alone asks the provider's records, so what they show is what it drove: a scheduled
    // query of the relay's poller (its pull every pullIntervalSeconds × timeScale: 9 s at 0.01) took the
    // pull failure meant for the run's first pull. (It also pulled C2B rows whose confirmations were still
    // on their way, an unexplained break, until the pull's window ended pullGraceSeconds before now.)
    // Stopping waits for a cycle in flight. Every verdict is in (the ledger waited for it); the balance
    // snapshots of the traffic are kept.
    await stack.relay.poller.stop();
    const dropped = new Set<string>();
    const refused: string[] = [];
    const account = 'demo';
    const shortCode = String(
      (stack.config.accounts.get(`daraja/${account}`)?.settings as { shortCode?: string } | undefined)
        ?.shortCode,
    );
    const token = (
      await json<{ access_token: string }>(`${sim}/oauth/v1/generate?grant_type=client_credentials`, {
        headers: { authorization: `Basic ${Buffer.from(DARAJA_CONSUMER).toString('base64')}` },
      })
    ).access_token;
    let seed = options.seed + 1;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let n = 0; n < options.c2b; n++) {
      const drop = random() < options.drop;
      const answer = await json<{
        SimulatorOutcome: { TransID: string; confirmation: string; confirmationStatus?: number };
      }>(`${sim}/mpesa/c2b/v1/simulate`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...(drop ? { 'x-sim-fault': 'drop' } : {}),
        },
        body: JSON.stringify({
          ShortCode: shortCode,
          CommandID: 'CustomerPayBillOnline',
          Amount: 100 + n,
          Msisdn: '254708374149',
          BillRefNumber: `DAY-${n}`,
        }),
      });
      const { TransID, confirmation, confirmationStatus = 0 } = answer.SimulatorOutcome;
      if (drop) dropped.add(TransID);
      // The simulate call answers once the relay answered the confirmation: a 2xx means it holds it.
      else if (confirmation !== 'sent' || confirmationStatus < 200 || confirmationStatus > 299)
        refused.push(`${TransID} (${confirmation} ${confirmationStatus || ''})`.replace(' )', ')'));
    }
    note(`${options.c2b} C2B payments into ${shortCode}, ${dropped.size} confirmations dropped`);
    if (refused.length)
      note(`C2B confirmations the relay did not take (no injected fault): ${refused.join(', ')}`);

    // ---- the pull: the first answers 200 with a failure, the next brings the rows ----
    await json(`${sim}/_sim/books/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...faults, pullFailure: 1 }),
    });
    let shift = 0;
    const pulls: string[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      shift += 901_000;
      const clock = { now: () => new Date(Date.now() + shift) };
      const sink = stack.relay.services.statementSink;
      if (!sink) throw new Error('the local relay has no statement sink');
      const results = await runPullCycle({ ...stack.relay.services, statementSink: sink, clock });
      const mine = results.find((r) => r.provider === 'daraja' && r.account === account);
      pulls.push(mine?.outcome ?? 'none');
    }
    note(`pulls of daraja/${account}: ${pulls.join(', ')}`);

    // ---- the statements, as an operator uploads them: the account's C2B short code and its STK till ----
    const to = new Date(Date.now() + 3 * 86_400_000);
    const imported: Record<string, number> = {};
    const books: { entries: BookRow[]; served: BookRow[] } = { entries: [], served: [] };
    for (const code of [shortCode, STK_SHORT_CODE]) {
      const statement = await fetch(
        `${sim}/_sim/statements/daraja/${code}?layout=mpesa-merchant&from=${started.toISOString()}&to=${to.toISOString()}`,
      ).then((r) => r.text());
      // A file the relay took only in part in a request's time (202) is sent again from `next.from`.
      for (let from = 0, more = true; more;) {
        const answer = await json<{ result: Record<string, number>; next?: { from: number } }>(
          `${stack.relayUrl}/v1/statements/daraja/${account}/import?file=Mpesa_${code}.csv${from ? `&from=${from}` : ''}`,
          {
            method: 'POST',
            headers: {
              authorization: `Bearer ${options.adminToken}`,
              'x-relay-actor': options.closedBy ?? loginName(),
              'content-type': 'text/csv',
            },
            body: statement,
          },
        );
        for (const [k, v] of Object.entries(answer.result)) imported[k] = (imported[k] ?? 0) + v;
        more = answer.next !== undefined;
        if (answer.next) from = answer.next.from;
      }
      const book = await json<{ entries: BookRow[]; served: BookRow[] }>(`${sim}/_sim/books/daraja/${code}`);
      books.entries.push(...book.entries);
      books.served.push(...book.served);
    }
    note(`statements imported: ${JSON.stringify(imported)}`);

    // ---- close every touched business day, on a clock past its SLA ----
    const settings = statementSettings(stack.config, 'daraja', account);
    const touched = new Set(books.served.map((e) => businessDayOf(new Date(e.time).toISOString(), settings)));
    const { doc } = createDynamoClients({ endpoint: stack.dynamoEndpoint, requestTimeoutMs: 15_000 });
    const statements = new DynamoStatementStore(doc, {
      tableName: stack.tableName,
      retentionDays: stack.config.retention.transactionDays,
    });
    const days: DailyCloseReport[] = [];
    for (const day of [...touched].sort()) {
      const span = businessDaySpan(day, settings);
      const clock = { now: () => new Date(span.end + settings.slaSeconds * 1000 + 1000) };
      days.push(
        await closeDay(
          {
            config: stack.config,
            store: stack.relay.store,
            statements,
            clock,
            log: stack.relay.services.log,
          },
          { provider: 'daraja', account, day },
          { actor: { kind: 'person', name: options.closedBy ?? loginName() } },
        ),
      );
    }
    doc.destroy();

    // ---- explain every break ----
    const served = new Set(books.served.map((e) => e.id));
    const missing = new Set(books.entries.filter((e) => !served.has(e.id)).map((e) => e.id));
    const counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, { injected: 0, breaks: 0 }])) as Record<
      FaultKind,
      { injected: number; breaks: number }
    >;
    counts['missing-row'].injected = missing.size;
    counts['duplicated-row'].injected = books.served.filter((e) => e.fault === 'duplicate').length;
    counts['late-row'].injected = books.served.filter((e) => e.fault === 'late').length;
    counts['fee-row'].injected = books.served.filter((e) => e.fault === 'fee').length;
    counts['pull-failure-in-200'].injected = pulls.filter((p) => p !== 'pulled').length;
    counts['callback-dropped'].injected = ledger.facts.faults.drop + dropped.size;
    counts['callback-duplicated'].injected = ledger.facts.faults.duplicate;
    counts['status-5xx'].injected = ledger.facts.faults.status5xx;

    const byId = new Map(books.entries.map((e) => [e.id, e]));
    // STK payments whose callback was dropped were settled by the STK query, whose answer carries no
    // receipt: their rows on the till cannot be tied to them by key (docs/statements.md#proof).
    const receiptless = ledger.ledger.lines.filter(
      (l) =>
        l.key.startsWith('daraja/') &&
        l.key.includes('/ws_CO_') &&
        l.final === 'SUCCEEDED' &&
        l.origin === 'poll',
    );
    const stkDropped = {
      references: new Set(receiptless.map((l) => l.key.split('/').slice(2).join('/'))),
      rowsLeft: receiptless.length,
      late: new Set(books.served.filter((e) => e.fault === 'late').map((e) => e.id)),
    };
    // The balance asked is the short code's (api.partyA): its movements as they moved and as served.
    const balanceBook = {
      entries: books.entries.filter((e) => e.account === shortCode),
      servedAt: new Map<string, number>(),
    };
    for (const e of books.served)
      if (e.account === shortCode && e.fault !== 'duplicate' && !balanceBook.servedAt.has(e.id))
        balanceBook.servedAt.set(e.id, e.time);
    const breaks: ExplainedBreak[] = [];
    for (const report of days)
      for (const b of report.breaks) {
        const explained =
          b.category === 'balance-drift'
            ? explainDrift(b, { ...balanceBook, missing, dropped })
            : explain(b, { missing, dropped, byId, stkDropped });
        if (explained.fault) counts[explained.fault].breaks++;
        breaks.push({
          day: report.day,
          account: `${report.provider}/${report.account}`,
          category: b.category,
          subject: b.reference ?? b.providerId ?? b.id,
          ...(b.amount ? { amount: b.amount } : {}),
          ...explained,
        });
      }
    const matched = days.reduce((n, d) => n + d.matchRate.matched, 0);
    const toMatch = days.reduce((n, d) => n + d.matchRate.toMatch, 0);
    const matchRate = {
      matched,
      toMatch,
      rate: toMatch ? Math.round((matched / toMatch) * 10_000) / 10_000 : null,
    };
    const unexplained = breaks.filter((b) => !b.fault).length;
    const result = {
      days,
      breaks,
      unexplained,
      faults: counts,
      matchRate,
      verdictsBalanced: ledger.balanced,
      verdictProblems: [
        ...ledger.ledger.problems,
        ...ledger.facts.notStarted.map((n) => `not started: ${n}`),
      ],
    };
    // A break nothing explains comes with what the relay logged (a write that timed out under load, such
    // as a receipt alias not written, leaves a row no key can find): the run names its own suspect.
    const { warnings, errors, first } = stack.logged;
    const logged =
      unexplained > 0 && warnings + errors > 0
        ? `\n  the relay logged ${warnings} warning(s) and ${errors} error(s); the first:\n${first.map((l) => `    ${l}`).join('\n')}`
        : '';
    return { ...result, text: formatDay(result, imported, pulls) + logged };
  } finally {
    await stack.stop();
  }
}

/** The injected fault behind a break, from the books (what moved, what was served) and the run's plan. */
function explain(
  b: StatementBreak,
  known: {
    missing: Set<string>;
    dropped: Set<string>;
    byId: Map<string, BookRow>;
    stkDropped: { references: Set<string>; rowsLeft: number; late: Set<string> };
  },
): { fault?: FaultKind; why: string } {
  const entry = b.providerId ? known.byId.get(b.providerId) : undefined;
  if (b.category === 'missing-at-provider') {
    const id = b.providerId ?? b.reference ?? '';
    if (known.missing.has(id))
      return { fault: 'missing-row', why: `the simulator left row ${id} out of its statement and pulls` };
    if (b.reference && known.stkDropped.references.has(b.reference)) {
      // Its row on the till, found in the books by its amount (each push its own, scripts/ledger/plan.ts).
      const row = [...known.byId.values()].find(
        (e) =>
          e.account === STK_SHORT_CODE && e.kind === 'payment' && b.amount && e.amountIn === Number(b.amount),
      );
      if (row && known.missing.has(row.id))
        return {
          fault: 'missing-row',
          why: `the STK callback of ${b.reference} was dropped (no receipt) and the simulator left its till row ${row.id} out`,
        };
      if (row && known.stkDropped.late.has(row.id))
        return {
          fault: 'late-row',
          why: `the STK callback of ${b.reference} was dropped (no receipt) and its till row ${row.id} was posted late, outside the time tolerance: not paired`,
        };
      return {
        fault: 'callback-dropped',
        why: `the STK callback of ${b.reference} was dropped; the STK query settled it without a receipt, and its till row could not be paired with it (one of several of its amount)`,
      };
    }
    return { why: `no injected fault left row ${id} out` };
  }
  if (b.category === 'missing-in-relay' && b.providerId) {
    if (b.resolution === 'opened' && known.dropped.has(b.providerId))
      return {
        fault: 'callback-dropped',
        why: `the C2B confirmation of ${b.providerId} was dropped; the provider's records opened it`,
      };
    if (entry?.account === STK_SHORT_CODE && entry.kind === 'payment' && known.stkDropped.rowsLeft > 0) {
      known.stkDropped.rowsLeft--;
      if (known.stkDropped.late.has(b.providerId))
        return {
          fault: 'late-row',
          why: `the till's row ${b.providerId} of an STK payment whose callback was dropped was posted late (past midnight): outside the time tolerance it is not paired, and not opened beside the payment`,
        };
      return {
        fault: 'callback-dropped',
        why: `the till's row ${b.providerId} is an STK payment whose callback was dropped (settled by the STK query, no receipt); more than one such payment could be it, so a person pairs it`,
      };
    }
    return { why: `money moved (${b.providerId}${entry ? `, ${entry.kind}` : ''}) that no fault hid` };
  }
  return { why: b.detail };
}

/** Money in cents (the books' amounts have two decimals). */
const cents = (value: number | string) => Math.round(Number(value) * 100);

/**
 * A balance-drift break, explained from the books: the balance counts each movement of its short code
 * when it moved; the relay counts it when the provider's records date it (a row) or, with no row, at its
 * verdict, or never when it never heard of it. The drift is explained when the movements the injected
 * faults shaped (a row left out, a row posted late) add up to it exactly, to the cent; a movement left
 * out whose payment the relay knew (by its callback) counts at a verdict the books do not know, so it
 * may fall either side of a snapshot: both are tried.
 */
export function explainDrift(
  b: StatementBreak,
  known: {
    entries: BookRow[];
    servedAt: Map<string, number>;
    missing: Set<string>;
    dropped: Set<string>;
  },
): { fault?: FaultKind; why: string } {
  const interval = /between (\S+) and (\S+);/.exec(b.detail);
  if (!interval || b.actual === undefined || b.expected === undefined) return { why: b.detail };
  const [from, to] = [Date.parse(interval[1]!), Date.parse(interval[2]!)];
  // The statements and the balance name whole seconds: a movement is in the interval by its second.
  const inside = (ms: number) => {
    const second = Math.floor(ms / 1000) * 1000;
    return second > from && second <= to;
  };
  const drift = cents(b.actual) - cents(b.expected);
  // A charge the relay counts with its payment: with the payment unknown and its row left out, the
  // balance has it, the relay not (shared/app/statements/statement-sink.ts balanceDrift).
  const feeOf = (id: string) =>
    known.entries
      .filter((f) => f.kind === 'fee' && f.linkedId === id && inside(f.time))
      .reduce((n, f) => n + cents(f.amountIn) - cents(f.amountOut), 0);
  const fixed: { cents: number; fault: FaultKind; why: string }[] = [];
  // Its charge the relay links by the receipt the callback brought: counted where it moved.
  const either: { net: number; trueIn: number; entry: BookRow }[] = [];
  for (const e of known.entries) {
    if (e.kind === 'fee') continue; // served where it moved, always (simulator/core/books.ts)
    const net = cents(e.amountIn) - cents(e.amountOut);
    const trueIn = inside(e.time) ? 1 : 0;
    const served = known.servedAt.get(e.id);
    const amount = `${Math.abs(net) / 100} KES`;
    if (served !== undefined) {
      const share = net * (trueIn - (inside(served) ? 1 : 0));
      if (share !== 0)
        fixed.push({
          cents: share,
          fault: 'late-row',
          why: `${e.id} (${amount}) moved at ${new Date(e.time).toISOString()}, its row was posted late, dated ${new Date(served).toISOString()}`,
        });
    } else if (known.missing.has(e.id)) {
      if (known.dropped.has(e.id)) {
        if (trueIn || feeOf(e.id))
          fixed.push({
            cents: net * trueIn + feeOf(e.id),
            fault: 'missing-row',
            why: `${e.id} (${amount}): its confirmation was dropped and its row left out, the relay never heard of it`,
          });
      } else either.push({ net, trueIn, entry: e });
    }
  }
  const base = fixed.reduce((n, f) => n + f.cents, 0);
  // The left-out rows of payments the relay knew: each counted at its verdict, inside or not.
  for (let mask = 0; mask < 2 ** Math.min(either.length, 12); mask++) {
    const chosen = either
      .map((x, i) => ({ ...x, seenIn: (mask >> i) & 1 }))
      .filter((x) => x.trueIn !== x.seenIn);
    const total = base + chosen.reduce((n, x) => n + x.net * (x.trueIn - x.seenIn), 0);
    if (total !== drift || (fixed.length === 0 && chosen.length === 0)) continue;
    const parts = [
      ...fixed,
      ...chosen.map((x) => ({
        fault: 'missing-row' as const,
        why: `${x.entry.id} (${Math.abs(x.net) / 100} KES): its row was left out, the relay counted it at its verdict, ${x.seenIn ? 'inside' : 'outside'} the interval the money moved ${x.trueIn ? 'in' : 'out of'}`,
      })),
    ];
    return {
      fault: parts[0]!.fault,
      why: `the balance moved ${b.actual}, the relay counted ${b.expected}: ${parts.map((p) => p.why).join('; ')}`,
    };
  }
  return {
    why: `${b.detail}; the faults the books show add up to ${(base / 100).toFixed(2)}, not the drift`,
  };
}

export function formatDay(
  result: Omit<DayRunResult, 'text'>,
  imported: Record<string, number>,
  pulls: string[],
): string {
  const pct = (r: number | null) => (r === null ? 'n/a' : `${(r * 100).toFixed(2)} %`);
  const lines = [
    '',
    'THE DAY ADDS UP (daraja/demo, closed from the pull and the statement)',
    `  pulls: ${pulls.join(', ')}; statement import: ${Object.entries(imported)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    '',
    '  day         state    payments matched fees  breaks  match rate',
    ...result.days.map(
      (d) =>
        `  ${d.day}  ${d.state.padEnd(7)}  ${String(d.rows.payments).padStart(8)} ${String(d.rows.matched).padStart(7)} ${String(d.rows.fees.count).padStart(4)}  ${String(d.breaks.length).padStart(6)}  ${pct(d.matchRate.rate)}`,
    ),
    '',
    `  auto-match rate: ${pct(result.matchRate.rate)} (${result.matchRate.matched} of ${result.matchRate.toMatch})`,
    '',
    '  fault                  injected  breaks it explains',
    ...FAULT_KINDS.map(
      (k) =>
        `  ${k.padEnd(22)} ${String(result.faults[k].injected).padStart(8)}  ${String(result.faults[k].breaks).padStart(6)}`,
    ),
    '',
    `  breaks: ${result.breaks.length}, explained ${result.breaks.length - result.unexplained}, unexplained ${result.unexplained}`,
    ...result.breaks.map(
      (b) =>
        `  ${b.fault ? '✓' : '✖'} ${b.day} ${b.category.padEnd(20)} ${b.subject}${b.amount ? ` (${b.amount})` : ''}: ${b.fault ?? 'UNEXPLAINED'}: ${b.why}`,
    ),
    '',
    result.unexplained === 0 && result.verdictsBalanced
      ? '  ✓ every break explained by an injected fault; the verdicts balance'
      : `  ✖ ${result.unexplained} unexplained break(s)${result.verdictsBalanced ? '' : '; the verdicts do not balance:'}`,
    ...(result.verdictsBalanced ? [] : result.verdictProblems.map((p) => `    ${p}`)),
  ];
  return lines.join('\n');
}
