import { getTransaction, receiptPaging } from '../app/transactions/get-transaction';
import { forceCheck } from '../app/transactions/operate-transaction';
import { noMetrics } from '../app/ports';
import type { ReconcileServices } from '../app/reconciliation/reconcile';
import { reconciliationReport, reportRange } from '../app/reconciliation/reconciliation-report';
import { auditCsv, listAudit, MAX_CSV_ROWS, recordAuditAfter } from '../app/operations/audit';
import { approve, listApprovals, reject, resolveOrRequest } from '../app/operations/approvals';
import { acceptQuarantined, dismissQuarantined } from '../app/operations/quarantine-decisions';
import type { MeAnswer } from '../app/management-answers';
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
import { authenticate, requireRole } from './management-auth';
import { countTransactions, listTransactions } from '../app/console/list-transactions';
import { searchTransactions } from '../app/console/search-transactions';
import { receiptBody } from '../app/console/receipt-body';
import { listQuarantine } from '../app/console/list-quarantine';
import { consoleReport } from '../app/console/console-report';
import {
  type CsvExport,
  exportQuarantine,
  exportReport,
  exportTransactions,
} from '../app/console/export-csv';
import { callbackHealthView } from '../app/console/account-health';
import { badgeShops } from '../app/console/badge-shops';
import { businessTimeZones, storyTimeZone } from '../app/console/time-zones';
import type { TransactionKey } from '../domain/transaction';
import { statementRoute } from './statement-routes';
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

/**
 * POST /v1/transactions, GET /v1/transactions/{provider}/{account}/{reference}, the operator's
 * POST …/check and …/resolve, and GET /v1/reconciliation/report.
 */
export async function handleManagementRequest(
  services: RelayServices & Partial<Pick<ReconcileServices, 'statusApi' | 'metrics'>>,
  request: InboundRequest,
): Promise<HttpResponse> {
  const deps = { config: services.config, store: services.store, clock: services.clock };
  const segments = request.path.split('/').filter(Boolean);
  let actor: Actor | null = null;
  const signIn = (role: 'viewer' | 'operator' | 'admin', what: string): Actor => {
    actor = authenticate(services.config, request);
    requireRole(actor, role, what);
    return actor;
  };
  const audited = { ...services, scrub: services.scrub };
  const audit = (outcome: 'ok' | 'pending', httpStatus: number, detail: string | null, action?: string) =>
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
    if (
      segments[0] === 'v1' &&
      segments[1] === 'reconciliation' &&
      segments[2] === 'report' &&
      segments.length === 3
    ) {
      if (request.method !== 'GET') throw new MethodNotAllowedError(['GET'], request.method.slice(0, 16));
      signIn('viewer', 'The reconciliation report');
      const range = reportRange({ from: request.query.from, to: request.query.to }, services.clock.now());
      return json(200, await reconciliationReport(services.store, range, request.query.cursor || undefined));
    }
    const consoleAnswer = await consoleRoute(services, request, segments, signIn, audit);
    if (consoleAnswer) return consoleAnswer;
    const statementAnswer = await statementRoute(services, request, segments, signIn);
    if (statementAnswer) {
      if (request.method === 'POST')
        await audit('ok', statementAnswer.statusCode, request.query.dryRun === 'true' ? 'dry run' : null);
      return statementAnswer;
    }
    const operationsAnswer = await operationsRoute(services, request, segments, signIn, audit);
    if (operationsAnswer) return operationsAnswer;
    const destinationAnswer = await destinationRoute(services, request, segments, signIn, audit);
    if (destinationAnswer) return destinationAnswer;
    if (segments[0] !== 'v1' || segments[1] !== 'transactions')
      throw new RouteNotFoundError(`No such route; ${ROUTES_HINT}`);
    if (segments.length === 6 && (segments[5] === 'check' || segments[5] === 'resolve')) {
      if (request.method !== 'POST') throw new MethodNotAllowedError(['POST'], request.method.slice(0, 16));
      const who = signIn('operator', segments[5] === 'check' ? 'Check now' : 'Resolving by hand');
      const [provider, account, reference] = segments.slice(2, 5).map(decodeSegment) as [
        string,
        string,
        string,
      ];
      const reconcile: ReconcileServices = {
        ...services,
        statusApi: services.statusApi ?? (() => undefined),
        metrics: services.metrics ?? noMetrics,
      };
      if (segments[5] === 'check') {
        const checked = await forceCheck(reconcile, { provider, account, reference }, who);
        await audit('ok', 200, `answer ${checked.answer.type}`);
        return json(200, checked);
      }
      const body = parseJsonObjectBody(request, services.config.limits.maxBodyBytes);
      const outcome = await resolveOrRequest(reconcile, { provider, account, reference }, body, who);
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
    }
    if (segments.length === 2) {
      if (request.method !== 'POST')
        throw new MethodNotAllowedError(['GET', 'POST'], request.method.slice(0, 16));
      signIn('operator', 'Registering a transaction');
      const body = parseJsonObjectBody(request, services.config.limits.maxBodyBytes);
      const result = await registerTransaction(deps, body);
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
    }
    if (segments.length === 5) {
      if (request.method !== 'GET') throw new MethodNotAllowedError(['GET'], request.method.slice(0, 16));
      signIn('viewer', 'Reading a transaction');
      const [provider, account, reference] = segments.slice(2).map(decodeSegment) as [string, string, string];
      return json(
        200,
        await getTransaction(
          { ...deps, ...(services.deliveries ? { deliveries: services.deliveries } : {}) },
          { provider, account, reference },
          receiptPaging(request.query),
          storyTimeZone(request.query),
        ),
      );
    }
    throw new RouteNotFoundError(`No such route; ${ROUTES_HINT}`);
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

/** The operator console's reads (docs/management-api.md#console-endpoints); undefined: not one of them. */
async function consoleRoute(
  services: RelayServices,
  request: InboundRequest,
  segments: string[],
  signIn: SignIn,
  audit: Audit,
): Promise<HttpResponse | undefined> {
  if (segments[0] !== 'v1') return undefined;
  const deps = { config: services.config, store: services.store, clock: services.clock };
  const path = segments.slice(1).join('/');
  const read = (answer: () => Promise<unknown>) => {
    if (request.method !== 'GET') throw new MethodNotAllowedError(['GET'], request.method.slice(0, 16));
    signIn('viewer', 'The console');
    return answer().then((body) => json(200, body));
  };
  const query = request.query;
  const exporter = CSV_EXPORTS[path];
  if (exporter && query.format !== undefined && request.method === 'GET') {
    if (query.format === 'csv') {
      signIn('viewer', 'An export');
      return csvAnswer(await exporter(deps, query), audit, `${path}.export`);
    }
    if (query.format !== 'json')
      throw new SchemaValidationError('format must be csv or json', { details: { parameter: 'format' } });
  }
  if (path === 'transactions' && request.method === 'GET') return read(() => listTransactions(deps, query));
  if (path === 'transactions/counts') return read(() => countTransactions(deps, query));
  if (path === 'transactions/search') return read(() => searchTransactions(deps, query));
  if (segments[1] === 'transactions' && segments.length === 7 && segments[5] === 'receipts') {
    const [provider, account, reference, , receiptId] = segments.slice(2).map(decodeSegment) as string[];
    return read(() =>
      receiptBody(services.store, { provider, account, reference } as TransactionKey, receiptId!),
    );
  }
  if (path === 'quarantine') return read(() => listQuarantine(deps, query));
  if (path === 'report') return read(() => consoleReport(deps, query));
  if (path === 'callback-health') return read(() => callbackHealthView(deps));
  if (path === 'badges') return read(() => badgeShops(deps));
  return undefined;
}

/** The lists with a CSV form (`?format=csv`, the same filters): shared/app/console/export-csv.ts. */
const CSV_EXPORTS: Record<
  string,
  (
    deps: Pick<RelayServices, 'config' | 'store' | 'clock'>,
    query: Record<string, string | undefined>,
  ) => Promise<CsvExport>
> = {
  quarantine: exportQuarantine,
  report: exportReport,
  transactions: exportTransactions,
};

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

type SignIn = (role: 'viewer' | 'operator' | 'admin', what: string) => Actor;
type Audit = (
  outcome: 'ok' | 'pending',
  httpStatus: number,
  detail: string | null,
  action?: string,
) => Promise<void>;

/** What a resolution asked for, for the audit log (the note is kept in the transaction's history). */
function resolutionDetail(body: Record<string, unknown>): string {
  const amount =
    typeof body.amount === 'string' || typeof body.amount === 'number' ? ` amount ${body.amount}` : '';
  return `resolve ${String(body.status)}${amount}: ${String(body.note ?? '').slice(0, 200)}`;
}

/**
 * Who am I (GET /v1/me), the approvals (GET /v1/approvals, POST /v1/approvals/{id}/approve|reject) and
 * the audit log (GET /v1/audit, ?format=csv): docs/roles-and-audit.md. Undefined: not one of them.
 */
async function operationsRoute(
  services: RelayServices & Partial<Pick<ReconcileServices, 'statusApi' | 'metrics'>>,
  request: InboundRequest,
  segments: string[],
  signIn: SignIn,
  audit: Audit,
): Promise<HttpResponse | undefined> {
  if (segments[0] !== 'v1') return undefined;
  const onlyGet = () => {
    if (request.method !== 'GET') throw new MethodNotAllowedError(['GET'], request.method.slice(0, 16));
  };
  if (segments[1] === 'me' && segments.length === 2) {
    onlyGet();
    const actor = signIn('viewer', 'Signing in');
    const me: MeAnswer = {
      actor,
      can: { operate: hasRole(actor, 'operator'), administer: hasRole(actor, 'admin') },
      timeZones: businessTimeZones(services.config),
    };
    return json(200, me);
  }
  if (segments[1] === 'approvals' && segments.length === 2) {
    onlyGet();
    signIn('viewer', 'The approvals list');
    return json(200, await listApprovals(services, request.query));
  }
  if (
    segments[1] === 'approvals' &&
    segments.length === 4 &&
    (segments[3] === 'approve' || segments[3] === 'reject')
  ) {
    if (request.method !== 'POST') throw new MethodNotAllowedError(['POST'], request.method.slice(0, 16));
    const actor = signIn('admin', segments[3] === 'approve' ? 'Approving' : 'Rejecting');
    const id = decodeSegment(segments[2]!);
    const body = request.rawBody.length
      ? parseJsonObjectBody(request, services.config.limits.maxBodyBytes)
      : {};
    const reconcile: ReconcileServices = {
      ...services,
      statusApi: services.statusApi ?? (() => undefined),
      metrics: services.metrics ?? noMetrics,
    };
    if (segments[3] === 'reject') {
      const answer = await reject(reconcile, id, body, actor);
      const a = answer.approval;
      await audit(
        'ok',
        200,
        `rejected ${a.provider}/${a.account}/${a.reference} (${a.status}) requested by ${a.requestedBy.name}`,
      );
      return json(200, answer);
    }
    const answer = await approve(reconcile, id, body, actor);
    const a = answer.approval;
    await audit(
      'ok',
      200,
      `approved ${a.provider}/${a.account}/${a.reference} ${a.status} requested by ${a.requestedBy.name}`,
    );
    return json(200, answer);
  }
  if (
    segments[1] === 'quarantine' &&
    segments.length === 4 &&
    (segments[3] === 'accept' || segments[3] === 'dismiss')
  ) {
    if (request.method !== 'POST') throw new MethodNotAllowedError(['POST'], request.method.slice(0, 16));
    const actor = signIn(
      'operator',
      segments[3] === 'accept' ? 'Accepting a refused callback' : 'Dismissing a refused callback',
    );
    const id = decodeSegment(segments[2]!);
    const body = parseJsonObjectBody(request, services.config.limits.maxBodyBytes);
    const reconcile: ReconcileServices = {
      ...services,
      statusApi: services.statusApi ?? (() => undefined),
      metrics: services.metrics ?? noMetrics,
    };
    const answer =
      segments[3] === 'accept'
        ? await acceptQuarantined(reconcile, id, body, actor)
        : await dismissQuarantined(reconcile, id, body, actor);
    const d = answer.decision;
    await audit(
      'ok',
      200,
      `${d.kind}${answer.repeated ? ' (already, by ' + d.by.name + ')' : ''}${d.applied ? `: ${d.applied.reference} ${d.applied.status} (${d.applied.events.join(', ') || 'no event'})` : ''}; ${d.note.slice(0, 200)}`,
    );
    return json(200, answer);
  }
  if (segments[1] === 'audit' && segments.length === 2) {
    onlyGet();
    signIn('admin', 'The audit log');
    if (request.query.format === 'csv') {
      const page = await listAudit(services, request.query, MAX_CSV_ROWS);
      await audit(
        'ok',
        200,
        `${page.entries.length} entries${page.next ? ' (more in range)' : ''}`,
        'audit.export',
      );
      return {
        statusCode: 200,
        body: auditCsv(page.entries),
        headers: {
          'content-type': 'text/csv; charset=utf-8',
          'content-disposition': 'attachment; filename="relay-audit.csv"',
        },
      };
    }
    if (request.query.format !== undefined && request.query.format !== 'json')
      throw new SchemaValidationError('format must be csv or json', { details: { parameter: 'format' } });
    return json(200, await listAudit(services, request.query));
  }
  return undefined;
}

/**
 * The webhook destinations (docs/management-api.md#webhook-destinations): GET /v1/destinations, POST
 * …/{id}/pause|resume (operator), …/{id}/rotate (admin), GET …/{id}/deliveries, POST …/{id}/replay
 * (operator; a dry run counts), and GET /v1/transactions/{provider}/{account}/{reference}/deliveries.
 * Every POST is audited with its actor. Undefined: not one of them.
 */
async function destinationRoute(
  services: RelayServices,
  request: InboundRequest,
  segments: string[],
  signIn: SignIn,
  audit: Audit,
): Promise<HttpResponse | undefined> {
  const isTransactionDeliveries =
    segments[0] === 'v1' &&
    segments[1] === 'transactions' &&
    segments.length === 6 &&
    segments[5] === 'deliveries';
  if (segments[0] !== 'v1' || (segments[1] !== 'destinations' && !isTransactionDeliveries)) return undefined;
  const only = (method: 'GET' | 'POST') => {
    if (request.method !== method) throw new MethodNotAllowedError([method], request.method.slice(0, 16));
  };
  const admin = services.deliveries;
  if (!admin) throw new RouteNotFoundError('Webhook destinations are not served by this relay runtime');
  const { clock } = services;
  if (isTransactionDeliveries) {
    only('GET');
    signIn('viewer', 'A transaction’s deliveries');
    const [provider, account, reference] = segments.slice(2, 5).map(decodeSegment) as [
      string,
      string,
      string,
    ];
    return json(200, await transactionDeliveries(admin, { provider, account, reference }));
  }
  if (segments.length === 2) {
    only('GET');
    signIn('viewer', 'The destinations');
    return json(200, await listDestinations(admin, clock));
  }
  if (segments.length !== 4) return undefined;
  const id = decodeSegment(segments[2]!);
  const verb = segments[3];
  if (verb === 'deliveries') {
    only('GET');
    signIn('viewer', 'The delivery log');
    return json(200, await destinationDeliveries(admin, clock, id, request.query));
  }
  const body = () =>
    request.rawBody.length ? parseJsonObjectBody(request, services.config.limits.maxBodyBytes) : {};
  if (verb === 'pause' || verb === 'resume') {
    only('POST');
    const who = signIn('operator', verb === 'pause' ? 'Pausing a destination' : 'Resuming a destination');
    const answer =
      verb === 'pause'
        ? await pauseDestination(admin, clock, id, who)
        : await resumeDestination(admin, clock, id);
    await audit('ok', 200, `${verb}d ${id}`);
    return json(200, answer);
  }
  if (verb === 'rotate') {
    only('POST');
    const who = signIn('admin', 'Rotating a signing secret');
    const answer = await rotateSecret(admin, clock, id, body(), who);
    // The reference names where the secret is, not the secret: kept so the rotation can be traced.
    await audit('ok', 200, `rotated ${id}: both secrets sign until ${answer.rotation!.windowEndsAt}`);
    return json(200, answer);
  }
  if (verb === 'replay') {
    only('POST');
    const who = signIn('operator', 'Replaying deliveries');
    const answer = await replayDeliveries(admin, id, body(), who);
    await audit(
      'ok',
      200,
      `${answer.dryRun ? 'dry run: would replay' : 'replayed'} ${answer.count} events to ${id} (${JSON.stringify(answer.selector)})`,
    );
    return json(200, answer);
  }
  return undefined;
}

class InternalManagementError extends RelayError {
  readonly code = 'INTERNAL_ERROR';
}
