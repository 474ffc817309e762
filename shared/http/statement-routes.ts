import { closeCsv, closeDay, listDays } from '../app/statements/close-day';
import { importStatement } from '../app/statements/import-statement';
import type { RelayServices } from '../app/services';
import {
  PayloadTooLargeError,
  RouteNotFoundError,
  SchemaValidationError,
  UnknownAccountError,
} from '../domain/errors';
import type { StatementActor } from '../domain/statement';
import { type Actor, actorRef } from '../domain/actor';
import { accountKey } from '../config/schema';
import { hasControlCharacters } from '../util/text';
import { toCsv } from '../util/csv';
import type { StatementDaysAnswer } from '../app/management-answers';
import { type HttpResponse, type InboundRequest, json } from './types';

/** A statement upload's body limit: a Lambda request carries at most 6 MB; the CLI sends larger files in parts. */
export const MAX_STATEMENT_BYTES = 5 * 1024 * 1024;

/**
 * How long an import request may import before it answers (docs/statements.md#files): API Gateway ends a
 * request at 29 s, so the import stops between rows at 20 s (a batch in flight, 200 rows' reads and
 * writes, has the rest) and answers 202 with where to go on from; never a 5xx for a large file.
 */
const IMPORT_ANSWER_BUDGET_MS = 20_000;
/** Kept of a Lambda's remaining time for the batch in flight and the answer (the function's own timeout). */
export const IMPORT_ANSWER_MARGIN_MS = 3_000;

const ROW_INDEX = /^\d{1,9}$/;

/**
 * The person on every statement action (docs/statements.md#who) is the signed-in caller (a Cognito user,
 * a named token, an IAM principal: docs/roles-and-audit.md), never a name the request states.
 */
function personOf(actor: Actor): StatementActor {
  return { kind: 'person', name: actor.name, ref: actorRef(actor) };
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
/** Days the relay keeps books for: a real calendar day, and far enough from year 9999 to step past it. */
const FIRST_YEAR = 2000;
const LAST_YEAR = 2199;

/** A real calendar day (`2026-02-30` is not; `9999-12-31` is out of range): anything else is a 400. */
function isBookDay(text: string | undefined): boolean {
  const m = DAY.exec(text ?? '');
  if (!m) return false;
  const [year, month, date] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < FIRST_YEAR || year > LAST_YEAR) return false;
  const at = new Date(Date.UTC(year, month - 1, date));
  return at.getUTCFullYear() === year && at.getUTCMonth() === month - 1 && at.getUTCDate() === date;
}
const DAY_RULE = `a calendar day YYYY-MM-DD between ${FIRST_YEAR} and ${LAST_YEAR}`;

/** The statement use cases of the route table (shared/config/management-routes.ts). */
export type StatementUseCase =
  'importStatement' | 'listStatementDays' | 'readStatementDay' | 'closeStatementDay';

/**
 * The statement routes (docs/management-api.md#statements), matched by the management router from the
 * route table with the caller signed in (operator to import or close, viewer to read):
 *   POST /v1/statements/{provider}/{account}/import?file=&template=&dryRun=true   body: the CSV text
 *   GET  /v1/statements/{provider}/{account}/days[?from=&to=&format=csv]             the days, newest first
 *   GET  /v1/statements/{provider}/{account}/days/{day}[?format=csv]                  the day as it adds up
 *   POST /v1/statements/{provider}/{account}/days/{day}/close                          closes it when due
 */
export async function statementRoute(
  services: RelayServices,
  request: InboundRequest,
  useCase: StatementUseCase,
  params: Record<string, string>,
  actor: Actor,
): Promise<HttpResponse> {
  const { provider, account, day } = params;
  const importing = useCase === 'importStatement';
  const listing = useCase === 'listStatementDays';
  const closing = useCase === 'closeStatementDay';
  if (!services.config.accounts.has(accountKey(provider!, account!)))
    throw new UnknownAccountError(
      `No account ${String(provider).slice(0, 40)}/${String(account).slice(0, 64)}`,
    );
  const statements = services.statements;
  if (!statements) throw new RouteNotFoundError('Statements are not wired in this runtime');
  const deps = {
    config: services.config,
    store: services.store,
    statements,
    clock: services.clock,
    log: services.log,
  };
  if (importing) {
    if (request.rawBody.length > MAX_STATEMENT_BYTES)
      throw new PayloadTooLargeError(
        `The file is ${request.rawBody.length} bytes; send at most ${MAX_STATEMENT_BYTES} per request (npm run statement splits larger files)`,
      );
    const text = request.rawBody.toString('utf8');
    const file = (request.query.file ?? 'upload.csv').replace(/^.*[\\/]/, '').slice(0, 200);
    if (request.query.from !== undefined && !ROW_INDEX.test(request.query.from))
      throw new SchemaValidationError("from must be a row count (the answer's next.from)");
    const started = performance.now();
    const answer = await importStatement(deps, {
      provider: provider!,
      account: account!,
      ref: hasControlCharacters(file) ? 'upload.csv' : file,
      ...(request.query.template ? { template: request.query.template } : {}),
      actor: personOf(actor),
      dryRun: request.query.dryRun === 'true',
      open: () => [text],
      ...(request.query.from ? { from: Number(request.query.from) } : {}),
      budget: {
        ms: Math.min(
          IMPORT_ANSWER_BUDGET_MS,
          request.remainingMs === undefined ? Infinity : request.remainingMs - IMPORT_ANSWER_MARGIN_MS,
        ),
        elapsed: () => performance.now() - started,
      },
    });
    // Part of the file taken in the time a request has: 202, and where the same file goes on from.
    return json(answer.done ? 200 : 202, answer);
  }
  if (listing) {
    for (const bound of [request.query.from, request.query.to])
      if (bound !== undefined && !isBookDay(bound))
        throw new SchemaValidationError(`from and to must each be ${DAY_RULE}`);
    const days = await listDays(deps, {
      provider: provider!,
      account: account!,
      ...(request.query.from ? { from: request.query.from } : {}),
      ...(request.query.to ? { to: request.query.to } : {}),
    });
    if (request.query.format === 'csv') return daysCsv(days);
    return json(200, days);
  }
  if (!isBookDay(day)) throw new SchemaValidationError(`The day must be ${DAY_RULE}`);
  const at = { provider: provider!, account: account!, day: day! };
  if (closing) return json(200, await closeDay(deps, at, { actor: personOf(actor) }));
  const report = await closeDay(deps, at, { actor: { kind: 'system', name: 'read' }, close: false });
  if (request.query.format === 'csv')
    return csvFile(`${provider}-${account}-${day}.csv`, closeCsv(report), report.breaks.length);
  return json(200, report);
}

/** The business days as CSV (the days list's filters applied: from, to). */
function daysCsv(days: StatementDaysAnswer): HttpResponse {
  return csvFile(
    `${days.provider}-${days.account}-days.csv`,
    toCsv(
      [
        'day',
        'state',
        'closedAt',
        'payments',
        'matched',
        'toMatch',
        'matchRate',
        'fees',
        'lateResolutions',
        'breaks',
      ],
      days.days.map((d) => [
        d.day,
        d.state,
        d.closedAt,
        d.payments,
        d.matched,
        d.matchRate.toMatch,
        d.matchRate.rate,
        d.fees,
        d.lateResolutions,
        d.breaks,
      ]),
    ),
    days.days.length,
  );
}

/**
 * A statement CSV as the console's exports answer (shared/http/management-router.ts csvAnswer): its rows
 * counted (a day's: its breaks), and always complete (a day, or the days of a bounded range).
 */
function csvFile(filename: string, csv: string, rows: number): HttpResponse {
  return {
    statusCode: 200,
    body: csv,
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${filename}"`,
      'x-export-rows': String(rows),
      'x-export-complete': 'true',
    },
  };
}
