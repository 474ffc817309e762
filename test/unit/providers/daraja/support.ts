/**
 * Daraja callbacks through the one ingest over a MemoryStore, for the tests that follow a body from its
 * route's parse to the stored transaction and the published events.
 */
import { MemoryStore } from '../../../../shared/adapters/memory/memory-store';
import { type IngestDeps, ingestIntents } from '../../../../shared/app/transactions/ingest-report';
import { reconciliationSchema } from '../../../../shared/config/schema';
import { darajaProvider } from '../../../../shared/providers/daraja';
import { STATUS_QUERY } from '../../../../shared/providers/daraja/correlation';
import { darajaAccountSchema } from '../../../../shared/providers/daraja/schema';
import type { CallbackInput, ReportIntent } from '../../../../shared/providers/types';
import { registered } from '../../../helpers/reports';

const NOW = '2026-11-23T10:00:00.000Z';

export const API = { baseUrl: 'https://daraja.test', consumerKey: 'ck', consumerSecret: 'cs' };

/** `callbackFunction`: the account as the callback function in AWS loads it, without the API credentials. */
export function setup(options: { callbackFunction?: boolean } = {}) {
  const store = new MemoryStore();
  const deps: IngestDeps = {
    store,
    clock: { now: () => new Date(NOW) },
    log: { debug() {}, info() {}, warn() {}, error() {} },
    reconciliation: reconciliationSchema.parse({ windowSeconds: 3600 }),
  };
  const settings = darajaAccountSchema.parse({
    shortCode: '600638',
    ...(options.callbackFunction ? {} : { api: API }),
  });
  const parse = (route: string, body: Record<string, unknown>): readonly ReportIntent[] => {
    const input: CallbackInput<typeof settings> = {
      account: { provider: 'daraja', id: 'demo', pathSecret: undefined, settings },
      route,
      params: {},
      body,
      rawBody: Buffer.from(JSON.stringify(body)),
      headers: {},
      sourceIp: '196.201.214.200',
    };
    const parsed = darajaProvider.routes.find((r) => r.name === route)!.parse(input);
    if (parsed.type !== 'reports') throw new Error('expected reports');
    return parsed.reports;
  };
  const ingest = (route: string, body: Record<string, unknown>) =>
    ingestIntents(deps, {
      provider: 'daraja',
      account: 'demo',
      origin: 'callback',
      receivedAt: NOW,
      authenticated: false,
      intents: parse(route, body),
    });
  const success = () => store.published.filter((e) => e.metadata.type === 'TransactionSucceeded');
  return { store, parse, ingest, success };
}

/** A registered Daraja transaction of the account, still PENDING. */
export const registerPending = (
  s: ReturnType<typeof setup>,
  kind: string,
  reference: string,
  amount: string,
) =>
  s.store.createTransaction(
    registered({
      key: { provider: 'daraja', account: 'demo', reference },
      kind,
      amount: { value: amount, currency: 'KES' },
      externalId: undefined,
    }),
  );

/** The record the poller writes from Daraja's synchronous answer to its status query `id` (reconcile.ts putAlias). */
export const recordStatusQuery = (s: ReturnType<typeof setup>, id: string, data: Record<string, unknown>) =>
  s.store.putRecordIfAbsent({
    provider: 'daraja',
    account: 'demo',
    namespace: `alias:${STATUS_QUERY}`,
    id,
    data,
    createdAt: NOW,
  });
