import { SchemaValidationError, StatementFileError, UnknownAccountError } from '../../domain/errors';
import type { StatementActor, StatementIngestResult, StatementRow } from '../../domain/statement';
import {
  BUILT_IN_LAYOUTS,
  type ColumnTemplate,
  MAX_PREAMBLE_LINES,
  TemplateReader,
  detectLayout,
} from '../../domain/statement-layouts';
import { accountKey } from '../../config/schema';
import { CsvFormatError, readCsv } from '../../util/csv';
import { INGEST_BATCH, type StatementDeps, StatementLedger, statementSettings } from './statement-sink';

export interface StatementImport {
  provider: string;
  account: string;
  /** The file's name, for each row's origin (no path). */
  ref: string;
  /** A template of the config (`statements.templates`) or a built-in layout; absent: detected by header. */
  template?: string;
  actor: StatementActor;
  dryRun?: boolean;
  /** Opens the file from its start (it is read twice: validated whole, then imported). */
  open: () => AsyncIterable<string> | Iterable<string>;
  /** Rows of the file an earlier, bounded call already took (its answer's `next.from`): skipped. */
  from?: number;
  /**
   * How long the call may take: once `elapsed()` reaches `ms` it stops between rows (having taken at
   * least one) and answers where to go on from (`next`). Absent: the whole file.
   */
  budget?: { ms: number; elapsed: () => number };
}

export interface StatementImportAnswer {
  layout: string;
  dryRun: boolean;
  /** What this call changed (or would change): the rows from `from` to `next.from`, or to the end. */
  result: StatementIngestResult;
  /** Rows the file holds (every one checked, whatever part was imported). */
  rowsInFile: number;
  /** Every row from `from` on was taken. */
  done: boolean;
  /** The budget ran out: the rows from here on are still to take (the same file again, with `from`). */
  next?: { from: number };
}

function templateNamed(deps: StatementDeps, name: string): ColumnTemplate {
  // Own members only: "__proto__" or "toString" names no template (they were a 500).
  const templates = deps.config.statements.templates;
  const configured = Object.hasOwn(templates, name) ? templates[name] : undefined;
  if (configured) return configured as ColumnTemplate;
  const builtIn = Object.hasOwn(BUILT_IN_LAYOUTS, name) ? BUILT_IN_LAYOUTS[name] : undefined;
  if (builtIn) return builtIn;
  const known = [...Object.keys(BUILT_IN_LAYOUTS), ...Object.keys(deps.config.statements.templates)];
  throw new SchemaValidationError(`No statement template "${name.slice(0, 64)}"; known: ${known.join(', ')}`);
}

/** The layout named, or the built-in layout whose header row the file's first lines hold. */
async function layoutOf(deps: StatementDeps, input: StatementImport): Promise<string> {
  if (input.template) {
    templateNamed(deps, input.template);
    return input.template;
  }
  let seen = 0;
  for await (const record of csvRecords(input.open())) {
    const name = detectLayout(record.fields);
    if (name) return name;
    if (++seen >= MAX_PREAMBLE_LINES) break;
  }
  throw new StatementFileError(
    `No known layout's header row in the first ${MAX_PREAMBLE_LINES} lines; name a template (--template) for this file`,
    { details: { line: Math.min(seen, MAX_PREAMBLE_LINES) } },
  );
}

async function* csvRecords(chunks: AsyncIterable<string> | Iterable<string>, delimiter?: string) {
  try {
    yield* readCsv(chunks, delimiter ? { delimiter } : {});
  } catch (error) {
    if (error instanceof CsvFormatError)
      throw new StatementFileError(`Line ${error.line}: ${error.message}`, {
        cause: error,
        details: { line: error.line },
      });
    throw error;
  }
}

async function* rowsOf(
  input: StatementImport,
  template: ColumnTemplate,
  timeZone: string,
): AsyncGenerator<StatementRow> {
  const reader = new TemplateReader(template, {
    provider: input.provider,
    account: input.account,
    source: 'statement-file',
    ref: input.ref,
    timeZone,
  });
  for await (const record of csvRecords(input.open(), template.delimiter)) {
    const row = reader.read(record);
    if (row) yield row;
  }
  if (!reader.ready)
    throw new StatementFileError("The file has no header row with the layout's columns", {
      details: { line: 1 },
    });
}

/**
 * Imports a statement file (docs/statements.md#files): the whole file is read and checked first (a bad row
 * or column is a StatementFileError naming them, and nothing is imported), then read again and handed to
 * the matcher in batches. Memory holds one batch whatever the file's size. Importing the same or an
 * overlapping file again changes nothing (rows are known by key and content); `dryRun` reports what the
 * import would change and changes nothing.
 */
export async function importStatement(
  deps: StatementDeps,
  input: StatementImport,
): Promise<StatementImportAnswer> {
  if (!deps.config.accounts.has(accountKey(input.provider, input.account)))
    throw new UnknownAccountError(`No account ${input.provider}/${input.account} is configured`);
  const layout = await layoutOf(deps, input);
  const template = templateNamed(deps, layout);
  const { timeZone } = statementSettings(deps.config, input.provider, input.account);
  // Pass 1: every row must read, or nothing is imported.
  let count = 0;
  for await (const _row of rowsOf(input, template, timeZone)) count++;
  if (count === 0) throw new StatementFileError('The file holds no rows', { details: { line: 1 } });
  const from = input.from ?? 0;
  if (!Number.isSafeInteger(from) || from < 0 || from >= count)
    throw new SchemaValidationError(
      `from must be a row of the file: 0 to ${count - 1} (it holds ${count} rows)`,
    );
  const ledger = new StatementLedger(deps);
  const options = { actor: input.actor, ...(input.dryRun ? { dryRun: true } : {}) };
  const total: StatementIngestResult = {
    rows: 0,
    alreadyKnown: 0,
    matched: 0,
    opened: 0,
    settled: 0,
    conflicts: 0,
    breaks: 0,
    feesLinked: 0,
    heldAboveLimit: 0,
  };
  // Pass 2, from `from` on, a batch at a time; within a budget, it stops between rows once it is spent
  // (after one row at least: every call moves on), and says where the next call goes on from.
  let taken = from;
  let seen = 0;
  let stopped = false;
  /** The budget is spent, `more` rows taken since the last count (none taken yet: never, so each call moves on). */
  const spent = (more = 0) =>
    input.budget !== undefined && taken + more > from && input.budget.elapsed() >= input.budget.ms;
  let batch: StatementRow[] = [];
  const flush = async () => {
    const size = batch.length;
    const took = await ledger.ingestBatch(batch, options, total, spent);
    taken += took;
    stopped = took < size;
    batch = [];
  };
  for await (const row of rowsOf(input, template, timeZone)) {
    if (seen++ < from) continue;
    if (spent()) {
      stopped = true;
      break;
    }
    batch.push(row);
    if (batch.length >= INGEST_BATCH) await flush();
    if (stopped) break;
  }
  if (!stopped && batch.length) await flush();
  const done = taken >= count;
  deps.log.info('statement imported', {
    provider: input.provider,
    account: input.account,
    file: input.ref,
    layout,
    dryRun: input.dryRun === true,
    by: input.actor.name,
    from,
    ...(done ? {} : { next: taken }),
    ...total,
  });
  return {
    layout,
    dryRun: input.dryRun === true,
    result: total,
    rowsInFile: count,
    done,
    ...(done ? {} : { next: { from: taken } }),
  };
}
