/**
 * The world the management router's role tests run in: the router itself (the one the Lambda and
 * `npm start` run) on the memory store, people signing in by named bearer tokens, a clock the test drives
 * and MoMo's status API answering PENDING, so that a payment expires when its window is driven past.
 */
import { expect } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { runPollCycle } from '../../../shared/app/reconciliation/poll-cycle';
import type { ReconcileServices } from '../../../shared/app/reconciliation/reconcile';
import { parseConfig } from '../../../shared/config/load';
import { handleManagementRequest } from '../../../shared/http/management-router';
import type { InboundRequest } from '../../../shared/http/types';
import type { StatusApi } from '../../../shared/providers/types';

export const START = Date.parse('2026-11-23T10:00:00.000Z');

/** The people: a viewer, an operator and two admins (four eyes need a second one). */
const TOKENS = {
  vic: 'viewer-token-0123456789',
  ana: 'operator-token-0123456789',
  bo: 'admin-token-0123456789ab',
  cy: 'admin-token-0123456789cd',
};
const ROLES = { vic: 'viewer', ana: 'operator', bo: 'admin', cy: 'admin' } as const;
/** The shared `management.bearerToken`: it names nobody unless X-Relay-Actor does. */
export const SHARED_TOKEN = 'shared-token-0123456789';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const pendingApi = {
  query: async () => ({ type: 'pending', providerCode: 'PENDING', detail: 'PENDING' }),
} as unknown as StatusApi;

/**
 * A fresh world. momo/demo resolves up to 500 by an operator; `accounts` are MoMo's accounts (momo/demo
 * alone unless more are named); `more` is the rest of the configuration (badge shops…).
 */
export function managementWorld(
  accounts: Record<string, Record<string, unknown>> = {},
  more: Record<string, unknown> = {},
) {
  const config = parseConfig({
    ...more,
    management: {
      auth: 'bearer',
      bearerToken: SHARED_TOKEN,
      tokens: Object.entries(TOKENS).map(([name, token]) => ({
        name,
        role: ROLES[name as keyof typeof ROLES],
        token,
      })),
      resolveLimits: { 'momo/demo': '500' },
      approvalTtlSeconds: 3600,
    },
    reconciliation: { windowSeconds: 600 },
    accounts: { momo: { demo: { pathSecret: 'momo-path-secret-0123' }, ...accounts } },
  });
  const store = new MemoryStore();
  let now = START;
  const clock = { now: () => new Date(now) };
  const services: ReconcileServices = {
    config,
    store,
    clock,
    log: silent,
    scrub: (s) => s,
    statusApi: () => pendingApi,
    metrics: { count() {}, timing() {}, flush() {} },
  };
  let n = 0;
  /** A request through the router with these headers (and a JSON body's content type). */
  const callWith = async (headers: Record<string, string>, method: string, path: string, body?: unknown) => {
    const [pathname, search = ''] = path.split('?');
    const request: InboundRequest = {
      requestId: `req-${++n}`,
      method,
      path: pathname!,
      headers: {
        ...headers,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      query: Object.fromEntries(new URLSearchParams(search)),
      rawBody: Buffer.from(body === undefined ? '' : JSON.stringify(body)),
      sourceIp: '192.0.2.10',
      receivedAt: clock.now(),
    };
    const res = await handleManagementRequest(services, request);
    return { status: res.statusCode, body: res.body as any, headers: res.headers ?? {} };
  };
  /** A request through the router as `who` (null: no authorization header at all). */
  const call = (who: keyof typeof TOKENS | null, method: string, path: string, body?: unknown) =>
    callWith(who ? { authorization: `Bearer ${TOKENS[who]}` } : {}, method, path, body);
  /** Registers a MoMo payment and lets its window pass with the provider saying PENDING: EXPIRED. */
  const expired = async (reference: string, amount: string, account = 'demo') => {
    const registered = await call('ana', 'POST', '/v1/transactions', {
      provider: 'momo',
      account,
      kind: 'requesttopay',
      reference,
      amount,
      currency: 'EUR',
    });
    expect(registered.status).toBe(201);
    for (let i = 0; i < 40; i++) {
      const tx = await store.getTransaction({ provider: 'momo', account, reference });
      if (tx?.status === 'EXPIRED') return;
      now += 120_000;
      await runPollCycle(services, { owner: 'p1' });
    }
    throw new Error(`${reference} never expired`);
  };
  return { store, services, call, callWith, expired, advance: (s: number) => void (now += s * 1000) };
}
