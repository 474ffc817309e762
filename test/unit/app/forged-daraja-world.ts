/**
 * One Daraja account reached through the callback endpoint (its routes, parsers and the one ingest) on an
 * in-memory store, for the forged-callback tests: a sender posts from any address; a poll cycle a minute
 * later asks Daraja, which is out (every question is recorded, none answered).
 */
import { readFileSync } from 'node:fs';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import type { RelayMetrics } from '../../../shared/app/ports';
import { runPollCycle } from '../../../shared/app/reconciliation/poll-cycle';
import { statusApiRegistry } from '../../../shared/app/reconciliation/status-apis';
import { parseConfig } from '../../../shared/config/load';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import { registered } from '../../helpers/reports';
import { jsonCallback, quietServices } from '../../helpers/quiet-services';

const SECRET = 'daraja-path-secret-0123456789';
export const FORGER_IP = '203.0.113.9';
/** One of Safaricom's documented callback addresses (the account's default allow-list). */
export const DARAJA_IP = '196.201.214.200';

const API = {
  baseUrl: 'https://daraja.example.com',
  consumerKey: 'consumer-key',
  consumerSecret: 'consumer-secret',
  initiator: 'testapi',
  securityCredential: 'c2VjcmV0',
};

/** The STK push of fixtures/daraja/stk-success.json (1 KES, receipt NLJ7RT61SV). */
export const STK_REFERENCE = 'ws_CO_191220191020363925';

export const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/daraja/${name}.json`, import.meta.url), 'utf8');

const noMetrics: RelayMetrics = { count: () => {}, timing: () => {}, flush: () => {} };

/**
 * Account `daraja/ke` with its source-IP list in `mode`, and a status API when `api`; `daraja` answers
 * the status API's calls (each asked URL is recorded either way), else Daraja is out.
 */
export function darajaWorld(account: {
  mode: 'log-only' | 'off' | 'enforce';
  /** The status API's Lipa na M-Pesa passkey: STK pushes are then checked with the STK query. */
  passkey?: boolean;
  /** The account's four-eyes limit (management.resolveLimits), if any. */
  resolveLimit?: string;
  api?: boolean;
  daraja?: (url: string, body: Record<string, unknown>) => Response | Promise<Response>;
  /** Unmatched bodies the account keeps a day (HINTS_PER_ACCOUNT_PER_DAY unless lowered). */
  unmatchedPerDay?: number;
}) {
  const config = parseConfig({
    management: {
      bearerToken: 'management-token-0123456789',
      ...(account.resolveLimit ? { resolveLimits: { 'daraja/ke': account.resolveLimit } } : {}),
    },
    accounts: {
      daraja: {
        ke: {
          pathSecret: SECRET,
          shortCode: '600638',
          sourceIp: { mode: account.mode },
          ...(account.api ? { api: { ...API, ...(account.passkey ? { passkey: 'stk-passkey' } : {}) } } : {}),
        },
      },
    },
  });
  let now = Date.parse('2026-11-23T10:00:01.000Z');
  // The store's clock is the world's: records with a lifetime expire on it.
  const store = new MemoryStore({ now: () => new Date(now) });
  const asked: string[] = [];
  const services = {
    ...quietServices(config, store, () => now),
    ...(account.unmatchedPerDay ? { limits: { hintsPerAccountPerDay: account.unmatchedPerDay } } : {}),
    fetchImpl: (async (url: string, init?: { body?: unknown }) => {
      asked.push(String(url));
      if (!account.daraja) throw new Error('no provider here');
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : {};
      return account.daraja(String(url), body);
    }) as unknown as typeof fetch,
  };
  const post = async (route: string, body: string, sourceIp: string) =>
    (
      await receiveCallback(
        services,
        jsonCallback({
          path: `/v1/daraja/ke/${SECRET}/${route}`,
          body,
          sourceIp,
          receivedAt: new Date('2026-11-23T10:00:00.000Z'),
        }),
      )
    ).statusCode;
  /** What the poller and the management use cases run on. */
  const reconcileServices = { ...services, statusApi: statusApiRegistry(services), metrics: noMetrics };
  /** One poll cycle a minute later (the deployed schedule), or `ms` later. */
  const poll = async (ms = 60_000) => {
    now += ms;
    await runPollCycle(reconcileServices, { owner: 'p1' });
  };
  const events = (type: string) => store.published.filter((e) => e.metadata.type === type);
  const types = () => store.published.map((e) => e.metadata.type);
  const transaction = (reference: string) =>
    store.getTransaction({ provider: 'daraja', account: 'ke', reference });
  /**
   * A paid 1 KES STK payment whose receipt (on the customer's SMS) the relay learnt: the push registered,
   * Daraja's success posted from its address. Returns that post's status code.
   */
  const payStk = async () => {
    await store.createTransaction(
      registered({
        key: { provider: 'daraja', account: 'ke', reference: STK_REFERENCE },
        kind: 'stk',
        amount: { value: '1', currency: 'KES' },
        externalId: undefined,
      }),
    );
    return post('stk', fixture('stk-success'), DARAJA_IP);
  };
  return { services: reconcileServices, store, post, poll, asked, events, types, transaction, payStk };
}
