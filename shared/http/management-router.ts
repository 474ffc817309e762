import { getTransaction, receiptPaging } from '../app/transactions/get-transaction';
import { forceCheck } from '../app/transactions/operate-transaction';
import { noMetrics } from '../app/ports';
import type { ReconcileServices } from '../app/reconciliation/reconcile';
import { reconciliationReport, reportRange } from '../app/reconciliation/reconciliation-report';
import { listAudit, recordAuditAfter } from '../app/operations/audit';
import { approve, listApprovals, reject, resolveOrRequest } from '../app/operations/approvals';
import { acceptQuarantined, dismissQuarantined } from '../app/operations/quarantine-decisions';
import type { MeAnswer } from '../app/management-answers';
import { PROVIDERS } from '../providers/registry';
import { type Actor, hasRole } from '../domain/actor';
import { registerTransaction } from '../app/transactions/register-transaction';
import type { RelayServices } from '../app/services';
import type { RelayConfig } from '../config/schema';
import {
  InvalidReferenceError,
  MethodNotAllowedError,
  ReceiptNotFoundError,
  RelayError,
  RouteNotFoundError,
  SchemaValidationError,
  StorageUnavailableError,
  TransactionNotFoundError,
  UnauthorizedError,
} from '../domain/errors';
import { authenticate, requireNamedPerson, requireRole } from './management-auth';
import { countTransactions, listTransactions } from '../app/console/list-transactions';
import { searchTransactions } from '../app/console/search-transactions';
import { receiptBody } from '../app/console/receipt-body';
import { listQuarantine } from '../app/console/list-quarantine';
import { consoleReport } from '../app/console/console-report';
import {
  type CsvExport,
  exportApprovals,
  exportAudit,
  exportBadges,
  exportCallbackHealth,
  exportDeliveries,
  exportDestinations,
  exportQuarantine,
  exportReport,
  exportSearch,
  exportStory,
  exportTransactions,
} from '../app/console/export-csv';
import { callbackHealthView } from '../app/console/account-health';
import { badgeShops } from '../app/console/badge-shops';
import { badParameter } from '../app/console/console-query';
import { idProblem } from '../util/text';
import { businessTimeZones, storyTimeZone } from '../app/console/time-zones';
import type { TransactionKey } from '../domain/transaction';
import { statementRoute, type StatementUseCase } from './statement-routes';
import { type ManagementUseCase, routesAt } from '../config/management-routes';
import {
  destinationDeliveries,
  listDestinations,
  pauseDestination,
  replayDeliveries,
  resumeDestination,
  rotateSecret,
  transactionDeliveries,
} from '../app/delivery/destinations-admin';
import { errorResponse, internalErrorResponse, statusFor } from './error-mapping';
import { parseJsonObjectBody } from './guards';
import { type HttpResponse, type InboundRequest, json } from './types';

/**
 * The management API's sign-in (management-auth.ts authenticate); also the local event stream's. Kept
 * under this name for the stream: it answers who signed in.
 */
export function checkBearer(
  config: RelayConfig,
  request: Pick<InboundRequest, 'headers' | 'principal'>,
): Actor {
  return authenticate(config, request);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new InvalidReferenceError('A path segment is not valid percent-encoding');
  }
}

/**
 * A reference in the path is checked as registration and every report are (`idProblem`, one rule for the
 * ids the relay keeps as keys): one over the limit names no transaction, so reading, checking or resolving
 * it is a 400 INVALID_REFERENCE, never a 404 or the store's refusal of a key that long.
 */
function checkPathReference(params: Record<string, string>): void {
  const problem = idProblem('the reference', params.reference);
  if (problem) throw new InvalidReferenceError(problem);
}

/** The query parameters of the routes that take a fixed few (others read theirs themselves). */
const QUERY_PARAMETERS: Partial<Record<ManagementUseCase, readonly string[]>> = {
  consoleReport: ['from', 'to', 'cursor', 'format'],
  // A mistyped filter (`?stauts=FAILED`) would answer every transaction as if it were the filtered list.
  listTransactions: [
    'provider',
    'account',
    'kind',
    'status',
    'from',
    'to',
    'since',
    'limit',
    'cursor',
    'format',
  ],
  // Lists read whole (no pages): a `cursor` there would silently answer the first page again.
  searchTransactions: ['q', 'limit', 'from', 'to', 'format'],
  listApprovals: ['state', 'format'],
  listStatementDays: ['from', 'to', 'format'],
  callbackHealth: ['provider', 'account', 'format'],
  badgeShops: ['shop', 'format'],
};

/** 400 naming the parameter and what it may be: a filter is never ignored or matched against nothing. */
function checkQueryValue(name: string, value: string | undefined, allowed: readonly string[]): void {
  if (value === undefined || value === '' || allowed.includes(value)) return;
  throw new SchemaValidationError(
    `${name}: must be one of ${allowed.join(', ') || '(none configured)'}`.slice(0, 1000),
    { details: { parameter: name, allowed } },
  );
}

/**
 * Filters are refused when they cannot mean anything: a provider that is not one of the registry's, on
 * every route; on the routes of QUERY_PARAMETERS, a parameter they do not take (the report has no
 * provider filter), an account that is not configured (callback health lists configured accounts only)
 * and a badge shop that is not configured.
 */
function checkFilters(config: RelayConfig, useCase: ManagementUseCase, query: InboundRequest['query']): void {
  const providers = PROVIDERS.map((p) => p.id);
  checkQueryValue('provider', query.provider, providers);
  const taken = QUERY_PARAMETERS[useCase];
  if (!taken) return;
  const unknown = Object.keys(query).find((name) => !taken.includes(name));
  if (unknown !== undefined)
    throw badParameter(unknown.slice(0, 40), `not a parameter of this route; it takes ${taken.join(', ')}`);
  if (useCase === 'callbackHealth') {
    const accounts = [...config.accounts.values()]
      .filter((a) => !query.provider || a.provider === query.provider)
      .map((a) => a.id);
    checkQueryValue('account', query.account, [...new Set(accounts)]);
  }
  if (useCase === 'badgeShops') checkQueryValue('shop', query.shop, Object.keys(config.badges.shops));
}

const ROUTES_HINT =
  'use POST /v1/transactions, GET /v1/transactions/{provider}/{account}/{reference}, POST …/{reference}/check, POST …/{reference}/resolve, GET /v1/reconciliation/report?from=&to=, the statement routes under /v1/statements (docs/statements.md), the approvals and audit routes (docs/roles-and-audit.md), the webhook destination routes under /v1/destinations (docs/management-api.md#webhook-destinations), or the console reads (docs/management-api.md#console-endpoints)';

/** What the audit log calls a request to this path (docs/roles-and-audit.md#audit-log). */
function actionOf(method: string, segments: readonly string[]): { action: string; target: string | null } {
  const [, area, ...rest] = segments;
  const last = rest.at(-1);
  if (area === 'transactions' && rest.length === 4 && (last === 'check' || last === 'resolve'))
    return { action: `transaction.${last}`, target: rest.slice(0, 3).join('/') };
  if (area === 'transactions' && rest.length === 0 && method === 'POST')
    return { action: 'transaction.register', target: null };
  if (area === 'approvals' && rest.length === 2)
    return { action: `approval.${rest[1]}`, target: `approval/${rest[0]}` };
  if (area === 'audit') return { action: 'audit.read', target: null };
  if (area === 'destinations' && rest.length === 2 && method === 'POST')
    return { action: `destination.${rest[1]}`, target: `destination/${rest[0]}` };
  if (area === 'quarantine' && rest.length === 2)
    return { action: `quarantine.${rest[1]}`, target: `quarantine/${rest[0]}` };
  if (area === 'statements' && method === 'POST')
    return {
      action: rest[2] === 'import' ? 'statement.import' : 'statement.close',
      target: rest.slice(0, rest[2] === 'import' ? 2 : 4).join('/'),
    };
  return {
    action: 'read',
    target: rest.length >= 3 && area === 'transactions' ? rest.slice(0, 3).join('/') : null,
  };
}

type ManagementServices = RelayServices & Partial<Pick<ReconcileServices, 'statusApi' | 'metrics'>>;

type Audit = (
  outcome: 'ok' | 'pending',
  httpStatus: number,
  detail: string | null,
  action?: string,
) => Promise<void>;

/** What a route's handler gets: the caller signed in with the route's role, the path's parameters decoded. */
interface RouteContext {
  services: ManagementServices;
  request: InboundRequest;
  params: Record<string, string>;
  actor: Actor;
  audit: Audit;
}

/**
 * The management API (shared/config/management-routes.ts declares its routes): the path and method pick
 * the route (404 when no route has the path, 405 naming the methods it has), the caller signs in with the
 * route's role, then its use case answers. Every action and every refusal is audited.
 */
export async function handleManagementRequest(
  services: ManagementServices,
  request: InboundRequest,
): Promise<HttpResponse> {
  const segments = request.path.split('/').filter(Boolean);
  let actor: Actor | null = null;
  const audited = { ...services, scrub: services.scrub };
  const audit: Audit = (outcome, httpStatus, detail, action) =>
    recordAuditAfter(audited, {
      actor,
      ...actionOf(request.method, segments),
      ...(action ? { action } : {}),
      outcome,
      httpStatus,
      detail,
      request,
    });
  try {
    const matches = routesAt(request.path);
    if (matches.length === 0) throw new RouteNotFoundError(`No such route; ${ROUTES_HINT}`);
    const match = matches.find((m) => m.route.method === request.method);
    if (!match)
      throw new MethodNotAllowedError(
        [...new Set(matches.map((m) => m.route.method))].sort(),
        request.method.slice(0, 16),
      );
    const { route } = match;
    actor = authenticate(services.config, request);
    requireRole(actor, route.role, route.what);
    requireNamedPerson(actor, route, request.query);
    const params = Object.fromEntries(
      Object.entries(match.params).map(([name, value]) => [name, decodeSegment(value)]),
    );
    checkPathReference(params);
    if (request.method === 'GET')
      checkFilters(services.config, route.useCase as ManagementUseCase, request.query);
    return await HANDLERS[route.useCase as ManagementUseCase]({ services, request, params, actor, audit });
  } catch (caught) {
    // Asking for a transaction (or receipt) that does not exist is an answer, not a rejected request; an
    // action on one is still an action (audited below).
    if (
      (caught instanceof TransactionNotFoundError || caught instanceof ReceiptNotFoundError) &&
      request.method === 'GET'
    )
      return errorResponse(caught, services.scrub);
    if (caught instanceof StorageUnavailableError) {
      services.log.error('management request failed: storage unavailable', { error: caught.message });
      return errorResponse(caught, services.scrub);
    }
    const unexpected = !(caught instanceof RelayError);
    if (unexpected) services.log.error('unexpected error in the management API', { error: caught as Error });
    const error = unexpected ? new InternalManagementError('Unexpected error', { cause: caught }) : caught;
    // A refused management call is the operator's (or an intruder's) doing, not a provider's: it goes to
    // the audit log, never into the provider-callback quarantine.
    const httpStatus = unexpected ? 500 : statusFor(error);
    await recordAuditAfter(audited, {
      actor,
      ...actionOf(request.method, segments),
      ...(error instanceof UnauthorizedError ? { action: 'sign-in' } : {}),
      outcome: unexpected ? 'failed' : 'refused',
      httpStatus,
      detail: `${error.code}: ${error.message}`,
      request,
    });
    return unexpected ? internalErrorResponse(request.requestId) : errorResponse(error, services.scrub);
  }
}

const keyOf = (params: Record<string, string>): TransactionKey => ({
  provider: params.provider!,
  account: params.account!,
  reference: params.reference!,
});

const reconcileOf = (services: ManagementServices): ReconcileServices => ({
  ...services,
  statusApi: services.statusApi ?? (() => undefined),
  metrics: services.metrics ?? noMetrics,
});

const depsOf = (services: ManagementServices) => ({
  config: services.config,
  store: services.store,
  clock: services.clock,
  ...(services.limits ? { limits: services.limits } : {}),
});

/** What a transaction's story reads: the store, and the delivery log where this runtime has one. */
const storyDepsOf = (services: ManagementServices) => ({
  ...depsOf(services),
  ...(services.deliveries ? { deliveries: services.deliveries } : {}),
});

/** A body that may be left out: none is `{}`. */
const optionalBody = (c: RouteContext) =>
  c.request.rawBody.length ? parseJsonObjectBody(c.request, c.services.config.limits.maxBodyBytes) : {};

/**
 * A list read; with `?format=csv` (or `json`) the list as CSV with the same filters
 * (shared/app/console/export-csv.ts), and the export is audited under `<area>.export`.
 */
function listRead(
  answer: (c: RouteContext) => Promise<unknown>,
  exporter: (c: RouteContext) => Promise<CsvExport>,
  action: string,
): (c: RouteContext) => Promise<HttpResponse> {
  return async (c) => {
    const format = c.request.query.format;
    if (format === 'csv') return csvAnswer(await exporter(c), c.audit, action);
    if (format !== undefined && format !== 'json')
      throw new SchemaValidationError('format must be csv or json', { details: { parameter: 'format' } });
    return json(200, await answer(c));
  };
}

/** A console read of the store, with its CSV form when it has one (the action names the path: `transactions.export`). */
function consoleRead(
  answer: (deps: ReturnType<typeof depsOf>, query: InboundRequest['query']) => Promise<unknown>,
  exporter?: (
    deps: Pick<RelayServices, 'config' | 'store' | 'clock'>,
    query: Record<string, string | undefined>,
  ) => Promise<CsvExport>,
  action?: string,
): (c: RouteContext) => Promise<HttpResponse> {
  const read = ({ services, request }: RouteContext) => answer(depsOf(services), request.query);
  if (!exporter) return async (c) => json(200, await read(c));
  return async (c) =>
    listRead(
      read,
      ({ services, request }) => exporter(depsOf(services), request.query),
      action ?? `${c.request.path.split('/').filter(Boolean).slice(1).join('/')}.export`,
    )(c);
}

/** The statement routes' answers (shared/http/statement-routes.ts); an import or a close is audited. */
function statementHandler(useCase: StatementUseCase): (c: RouteContext) => Promise<HttpResponse> {
  return async ({ services, request, params, actor, audit }) => {
    const answer = await statementRoute(services, request, useCase, params, actor);
    if (request.method === 'POST')
      await audit('ok', answer.statusCode, request.query.dryRun === 'true' ? 'dry run' : null);
    // An export is an action, as every list's (csvAnswer): who took which rows out.
    else if (request.query.format === 'csv')
      await audit(
        'ok',
        answer.statusCode,
        `${answer.headers?.['x-export-rows'] ?? '?'} rows of ${params.provider}/${params.account}${params.day ? ` ${params.day}` : ' days'}`,
        'statements.export',
      );
    return answer;
  };
}

/** The webhook destinations' store (docs/management-api.md#webhook-destinations), when this runtime has one. */
function deliveriesOf(services: ManagementServices) {
  const admin = services.deliveries;
  if (!admin) throw new RouteNotFoundError('Webhook destinations are not served by this relay runtime');
  return admin;
}

/** Each use case of the route table, by name: a route without its handler does not compile. */
const HANDLERS: Record<ManagementUseCase, (c: RouteContext) => Promise<HttpResponse>> = {
  async registerTransaction({ services, request }) {
    const body = parseJsonObjectBody(request, services.config.limits.maxBodyBytes);
    const result = await registerTransaction(depsOf(services), body);
    services.log.info('transaction registered', {
      provider: result.transaction.provider,
      account: result.transaction.account,
      reference: result.transaction.reference,
      created: result.created,
    });
    return json(result.created ? 201 : 200, {
      transaction: result.transaction,
      ...(result.callbackUrl ? { callbackUrl: result.callbackUrl } : {}),
    });
  },
  // The story's lists (timeline, evidence, deliveries, refused callbacks) export as every list does.
  getTransaction: listRead(
    ({ services, request, params }) =>
      getTransaction(
        storyDepsOf(services),
        keyOf(params),
        receiptPaging(request.query),
        storyTimeZone(request.query),
      ),
    ({ services, request, params }) => exportStory(storyDepsOf(services), keyOf(params), request.query),
    'transaction.story.export',
  ),
  async checkNow({ services, params, actor, audit }) {
    const checked = await forceCheck(reconcileOf(services), keyOf(params), actor);
    await audit('ok', 200, `answer ${checked.answer.type}`);
    return json(200, checked);
  },
  async resolveByHand({ services, request, params, actor, audit }) {
    const body = parseJsonObjectBody(request, services.config.limits.maxBodyBytes);
    const outcome = await resolveOrRequest(reconcileOf(services), keyOf(params), body, actor);
    const asked = resolutionDetail(body);
    if (!outcome.resolved) {
      await audit(
        'pending',
        202,
        `${asked}; above the limit ${outcome.approval.limit}: approval ${outcome.approval.id}`,
      );
      return json(202, { pending: true, approval: outcome.approval });
    }
    await audit('ok', 200, asked);
    const { resolved: _resolved, ...answer } = outcome;
    return json(200, answer);
  },
  async reconciliationReport({ services, request }) {
    const range = reportRange({ from: request.query.from, to: request.query.to }, services.clock.now());
    return json(200, await reconciliationReport(services.store, range, request.query.cursor || undefined));
  },
  listTransactions: consoleRead(listTransactions, exportTransactions),
  countTransactions: consoleRead(countTransactions),
  searchTransactions: consoleRead(searchTransactions, exportSearch, 'transactions.search.export'),
  async receiptBody({ services, params }) {
    return json(200, await receiptBody(services.store, keyOf(params), params.receiptId!));
  },
  listQuarantine: consoleRead(listQuarantine, exportQuarantine),
  acceptQuarantined: quarantineDecision('accept'),
  dismissQuarantined: quarantineDecision('dismiss'),
  consoleReport: consoleRead(consoleReport, exportReport),
  callbackHealth: consoleRead(callbackHealthView, exportCallbackHealth),
  // `shop` (checked against the configured shops) narrows the answer as it narrows the export.
  badgeShops: consoleRead(async (deps, query) => {
    const answer = await badgeShops(deps);
    return query.shop ? { shops: answer.shops.filter((s) => s.shop === query.shop) } : answer;
  }, exportBadges),
  importStatement: statementHandler('importStatement'),
  listStatementDays: statementHandler('listStatementDays'),
  readStatementDay: statementHandler('readStatementDay'),
  closeStatementDay: statementHandler('closeStatementDay'),
  async me({ services, actor }) {
    const me: MeAnswer = {
      actor,
      can: { operate: hasRole(actor, 'operator'), administer: hasRole(actor, 'admin') },
      timeZones: businessTimeZones(services.config),
      providers: PROVIDERS.map((p) => ({ id: p.id, name: p.displayName })),
    };
    return json(200, me);
  },
  listApprovals: listRead(
    ({ services, request }) => listApprovals(services, request.query),
    ({ services, request }) => exportApprovals(services, request.query),
    'approvals.export',
  ),
  async approve(c) {
    const answer = await approve(reconcileOf(c.services), c.params.id!, optionalBody(c), c.actor);
    const a = answer.approval;
    await c.audit(
      'ok',
      200,
      `approved ${a.provider}/${a.account}/${a.reference} ${a.status} requested by ${a.requestedBy.name}`,
    );
    return json(200, answer);
  },
  async reject(c) {
    const answer = await reject(reconcileOf(c.services), c.params.id!, optionalBody(c), c.actor);
    const a = answer.approval;
    await c.audit(
      'ok',
      200,
      `rejected ${a.provider}/${a.account}/${a.reference} (${a.status}) requested by ${a.requestedBy.name}`,
    );
    return json(200, answer);
  },
  listAudit: listRead(
    ({ services, request }) => listAudit(services, request.query),
    ({ services, request }) => exportAudit(services, request.query),
    'audit.export',
  ),
  listDestinations: listRead(
    ({ services }) => listDestinations(deliveriesOf(services), services.clock),
    ({ services }) => exportDestinations(deliveriesOf(services), services.clock),
    'destinations.export',
  ),
  destinationDeliveries: listRead(
    ({ services, request, params }) =>
      destinationDeliveries(deliveriesOf(services), services.clock, params.id!, withoutFormat(request.query)),
    ({ services, request, params }) =>
      exportDeliveries(deliveriesOf(services), services.clock, params.id!, request.query),
    'deliveries.export',
  ),
  async pauseDestination({ services, params, actor, audit }) {
    const answer = await pauseDestination(deliveriesOf(services), services.clock, params.id!, actor);
    await audit('ok', 200, `paused ${params.id}`);
    return json(200, answer);
  },
  async resumeDestination({ services, params, audit }) {
    const answer = await resumeDestination(deliveriesOf(services), services.clock, params.id!);
    await audit('ok', 200, `resumed ${params.id}`);
    return json(200, answer);
  },
  async rotateSecret(c) {
    const id = c.params.id!;
    const answer = await rotateSecret(
      deliveriesOf(c.services),
      c.services.clock,
      id,
      optionalBody(c),
      c.actor,
    );
    // The reference names where the secret is, not the secret: kept so the rotation can be traced.
    await c.audit('ok', 200, `rotated ${id}: both secrets sign until ${answer.rotation!.windowEndsAt}`);
    return json(200, answer);
  },
  async replayDeliveries(c) {
    const id = c.params.id!;
    const answer = await replayDeliveries(deliveriesOf(c.services), id, optionalBody(c), c.actor);
    await c.audit(
      'ok',
      200,
      `${answer.dryRun ? 'dry run: would replay' : 'replayed'} ${answer.count} events to ${id} (${JSON.stringify(answer.selector)})`,
    );
    return json(200, answer);
  },
  async transactionDeliveries({ services, params }) {
    return json(200, await transactionDeliveries(deliveriesOf(services), keyOf(params)));
  },
};

/** The query without `format=json` (a read that checks its parameters would refuse it). */
function withoutFormat(query: InboundRequest['query']): InboundRequest['query'] {
  const { format: _format, ...rest } = query;
  return rest;
}

/** Accepting or dismissing a refused callback (docs/roles-and-audit.md): the note is required. */
function quarantineDecision(kind: 'accept' | 'dismiss'): (c: RouteContext) => Promise<HttpResponse> {
  return async ({ services, request, params, actor, audit }) => {
    const body = parseJsonObjectBody(request, services.config.limits.maxBodyBytes);
    const answer =
      kind === 'accept'
        ? await acceptQuarantined(reconcileOf(services), params.id!, body, actor)
        : await dismissQuarantined(reconcileOf(services), params.id!, body, actor);
    const d = answer.decision;
    await audit(
      'ok',
      200,
      `${d.kind}${answer.repeated ? ' (already, by ' + d.by.name + ')' : ''}${d.applied ? `: ${d.applied.reference} ${d.applied.status} (${d.applied.events.join(', ') || 'no event'})` : ''}; ${d.note.slice(0, 200)}`,
    );
    return json(200, answer);
  };
}

/** An export is an action: the audit log says who took which rows out, and whether all of them. */
async function csvAnswer(exported: CsvExport, audit: Audit, action: string): Promise<HttpResponse> {
  await audit(
    'ok',
    200,
    `${exported.rows} rows${exported.complete ? '' : ' (partial: more in range)'}`,
    action,
  );
  return {
    statusCode: 200,
    body: exported.csv,
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${exported.filename}"`,
      'x-export-rows': String(exported.rows),
      'x-export-complete': String(exported.complete),
    },
  };
}

/** What a resolution asked for, for the audit log (the note is kept in the transaction's history). */
function resolutionDetail(body: Record<string, unknown>): string {
  const amount =
    typeof body.amount === 'string' || typeof body.amount === 'number' ? ` amount ${body.amount}` : '';
  return `resolve ${String(body.status)}${amount}: ${String(body.note ?? '').slice(0, 200)}`;
}

class InternalManagementError extends RelayError {
  readonly code = 'INTERNAL_ERROR';
}
