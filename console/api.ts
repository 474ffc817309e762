import { currentActorName, currentToken } from './auth';
import { RelayUnreachableError, reportAnswered, reportUnreachable } from './connection';

/** The endpoint is not served by this relay (404 ROUTE_NOT_FOUND): the view says "not available". */
export class NotAvailableError extends Error {
  override name = 'NotAvailableError';
}

/** The token was refused (401/403): the console goes back to its sign-in page. */
class SignInRequiredError extends Error {
  override name = 'SignInRequiredError';
}

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
    readonly body: unknown,
  ) {
    super(message);
  }
}

let apiBase = '';
let onSignInRequired: () => void = () => undefined;

export function configureApi(base: string, signInRequired: () => void): void {
  apiBase = base.replace(/\/$/, '');
  onSignInRequired = signInRequired;
}

export function apiUrl(path: string, query: Record<string, string | number | undefined | null> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return `${apiBase}${path}${qs ? `?${qs}` : ''}`;
}

/** The sign-in, and the person acting when they named themselves (the shared token names nobody). */
export function authHeaders(): Record<string, string> {
  const token = currentToken();
  const actor = currentActorName();
  return token ? { authorization: `Bearer ${token}`, ...(actor ? { 'x-relay-actor': actor } : {}) } : {};
}

/** A gateway's answer with no relay behind it (CloudFront or API Gateway while the function is away). */
const NO_RELAY_STATUSES = new Set([502, 504]);

/**
 * fetch that tells connection.ts what it found: no answer turns the banner on (RelayUnreachableError),
 * any answer turns it off.
 */
export async function relayFetch(url: string, init: RequestInit = {}): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    // Leaving a view aborts its requests: that is no outage.
    if (init.signal?.aborted) throw error;
    reportUnreachable();
    throw new RelayUnreachableError('The relay is not answering; this view loads again when it does.', {
      cause: error,
    });
  }
  if (NO_RELAY_STATUSES.has(response.status) && !response.headers.get('content-type')?.includes('json')) {
    reportUnreachable();
    throw new RelayUnreachableError(`The relay is not answering (${response.status} from the gateway).`);
  }
  reportAnswered();
  return response;
}

/**
 * Saves a list as CSV (`?format=csv` with the view's filters). Fetched with the sign-in header (a plain
 * link could not carry it), then saved from memory. Says how many rows, and whether that is all of them.
 */
export async function downloadCsv(
  path: string,
  query: Record<string, string | number | undefined | null>,
): Promise<{ rows: string | null; complete: boolean }> {
  const response = await relayFetch(apiUrl(path, { ...query, format: 'csv' }), { headers: authHeaders() });
  if (!response.ok)
    throw new ApiError(`export answered ${response.status}`, response.status, undefined, null);
  const name =
    /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'export.csv';
  const url = URL.createObjectURL(await response.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
  return {
    rows: response.headers.get('x-export-rows'),
    complete: response.headers.get('x-export-complete') !== 'false',
  };
}

let pending = 0;

/**
 * `aria-busy` on the page's main region while API calls are in flight: assistive technology waits for the
 * view, and so do the browser tests (a view is drawn once it is no longer busy). Lowered a task later, so
 * that a call made on the answer of another keeps it up.
 */
function busy(delta: 1 | -1): void {
  const apply = () => {
    pending += delta;
    document.getElementById('main')?.setAttribute('aria-busy', String(pending > 0));
  };
  if (delta > 0) apply();
  else setTimeout(apply, 0);
}

/** One management API call; errors carry the API's `{error:{code,message}}`. */
export async function api<T>(
  path: string,
  options: {
    method?: string;
    query?: Record<string, string | number | undefined | null>;
    body?: unknown;
  } = {},
): Promise<T> {
  busy(1);
  try {
    return await call<T>(path, options);
  } finally {
    busy(-1);
  }
}

async function call<T>(
  path: string,
  options: {
    method?: string;
    query?: Record<string, string | number | undefined | null>;
    body?: unknown;
  } = {},
): Promise<T> {
  const token = currentToken();
  const response = await relayFetch(apiUrl(path, options.query), {
    method: options.method ?? 'GET',
    headers: {
      ...authHeaders(),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  if (response.ok) return body as T;
  const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
  // A role's refusal (403 FORBIDDEN_ROLE, SELF_APPROVAL, NAMED_SIGN_IN_REQUIRED: four eyes with the shared
  // token) is an answer about the action, not the sign-in.
  const roleRefusal = ['FORBIDDEN_ROLE', 'SELF_APPROVAL', 'NAMED_SIGN_IN_REQUIRED'].includes(
    error?.code ?? '',
  );
  if (response.status === 401 || (response.status === 403 && !roleRefusal)) {
    // A refusal of a token the operator has meanwhile replaced says nothing about the new one.
    if (token === currentToken()) onSignInRequired();
    throw new SignInRequiredError(error?.message ?? 'Sign in again');
  }
  if (response.status === 404 && (error?.code === 'ROUTE_NOT_FOUND' || error === undefined))
    throw new NotAvailableError(`${path} is not served`);
  throw new ApiError(
    `${error?.code ?? response.status}: ${error?.message ?? response.statusText}`,
    response.status,
    error?.code,
    body,
  );
}

// The API's answers, typed once beside the server code that builds them (types only: nothing of the
// server ends up in the browser bundle).
export type {
  ApprovalsAnswer,
  ApprovalView,
  DestinationDeliveriesAnswer,
  DestinationsAnswer,
  DestinationView,
  ReplayAnswer,
  AuditPage,
  MeAnswer,
  TimeZonesView,
  CountsAnswer,
  QuarantinePage,
  QuarantineView,
  SearchAnswer,
  StatementDayAnswer,
  StatementDaysAnswer,
  TransactionPage,
  TransactionSummary,
} from '../shared/app/management-answers';

export function storyPath(t: { provider: string; account: string; reference: string }): string {
  return `/v1/transactions/${[t.provider, t.account, t.reference].map(encodeURIComponent).join('/')}`;
}
