/**
 * Quarantine decisions on DynamoDB Local (issue 30 item 7): a refused provider callback (a forged STK
 * success from outside Safaricom's addresses) is noted under the reference it aimed at; an operator who
 * accepts it applies it through the one decision as their own word (evidence source operator, naming them;
 * the event's acceptedFromQuarantine), once; a dismissal changes nothing but the entry.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiveCallback } from '../../shared/http/callback-endpoint';
import { handleManagementRequest } from '../../shared/http/management-router';
import { parseConfig } from '../../shared/config/load';
import { secretScrubber } from '../../shared/config/secrets';
import type { InboundRequest } from '../../shared/http/types';
import type { RelayServices } from '../../shared/app/services';
import { eventsFromChange } from '../../shared/domain/outbox';
import { registered } from '../helpers/reports';
import { createTestTable } from '../helpers/dynamo';
import { awaitRecord } from '../helpers/hostile';

const SECRET = 'daraja-path-secret-0123456789';
const SAFARICOM_IP = '196.201.214.200';
const REFERENCE = 'ws_CO_191220191020363925';
const KEY = { provider: 'daraja', account: 'ke', reference: REFERENCE };

const config = parseConfig({
  management: {
    tokens: [
      { name: 'ana', role: 'operator', token: 'ana-operator-token-0123' },
      { name: 'vic', role: 'viewer', token: 'vic-viewer-token-012345' },
    ],
    // An operator settles up to 500 KES alone (docs/roles-and-audit.md#four-eyes).
    resolveLimits: { 'daraja/ke': '500' },
  },
  accounts: {
    daraja: { ke: { pathSecret: SECRET, shortCode: '600638', sourceIp: { allow: [`${SAFARICOM_IP}/32`] } } },
  },
});

let table: Awaited<ReturnType<typeof createTestTable>>;
let services: RelayServices;
beforeAll(async () => {
  table = await createTestTable();
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  services = {
    config,
    store: table.store,
    clock: { now: () => new Date('2026-11-21T10:05:00.000Z') },
    log: silent,
    scrub: secretScrubber(config),
  };
});
afterAll(async () => {
  await table.drop();
});

function request(method: string, path: string, body: string, extra: Partial<InboundRequest> = {}) {
  return {
    requestId: 'req-1',
    method,
    path,
    headers: { 'content-type': 'application/json' },
    query: {},
    rawBody: Buffer.from(body, 'utf8'),
    sourceIp: '203.0.113.9',
    receivedAt: new Date('2026-11-21T10:00:00.000Z'),
    ...extra,
  } satisfies InboundRequest;
}

type Answer = any;

const forged = readFileSync(new URL('../fixtures/daraja/stk-success.json', import.meta.url), 'utf8');

/** A forged success refused for its source address; answers its quarantine entry. */
async function refuseForgedSuccess(reference: string, at: string, amount = '1') {
  await table.store.createTransaction(
    registered({
      key: { ...KEY, reference },
      kind: 'stk',
      amount: { value: amount, currency: 'KES' },
      createdAt: '2026-11-21T09:59:00.000Z',
    }),
  );
  const body = forged.replace(REFERENCE, reference).replace('"Value":1.00', `"Value":${amount}`);
  const answer = await receiveCallback(
    services,
    request('POST', `/v1/daraja/ke/${SECRET}/stk`, body, { receivedAt: new Date(at) }),
  );
  expect(answer.statusCode).toBe(403);
  // A refusal waits at most 1 s for its quarantine write: on a loaded machine it lands after the answer.
  const refused = await awaitRecord(
    async () => (await table.store.listRefusedFor({ ...KEY, reference }, 5))[0],
  );
  return refused!;
}

const decide = (token: string, id: string, what: 'accept' | 'dismiss', body: Record<string, unknown>) =>
  handleManagementRequest(
    services,
    request('POST', `/v1/quarantine/${id}/${what}`, JSON.stringify(body), {
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    }),
  );

describe('quarantine decisions on DynamoDB', () => {
  it('notes a refused callback under the reference it aimed at', async () => {
    // Act
    const refused = await refuseForgedSuccess('ws_CO_AIMED_1', '2026-11-21T10:00:00.000Z');
    // Assess
    expect(refused).toMatchObject({ errorCode: 'FORBIDDEN_SOURCE', httpStatus: 403 });
    const entry = await table.store.getQuarantineEntry(refused.receivedAt, refused.quarantineId);
    expect(entry?.reference).toBe('ws_CO_AIMED_1');
  });

  it('settles a forged success an operator accepts, with the operator as its evidence, once', async () => {
    // Prepare
    const refused = await refuseForgedSuccess('ws_CO_ACCEPT_1', '2026-11-21T10:00:01.000Z');
    const body = { receivedAt: refused.receivedAt, note: 'Safaricom confirmed by phone, ticket 88' };
    // Act
    const answer = await decide('ana-operator-token-0123', refused.quarantineId, 'accept', body);
    const again = await decide('ana-operator-token-0123', refused.quarantineId, 'accept', body);
    // Assess
    expect(answer.statusCode).toBe(200);
    const tx = (await table.store.getTransaction(
      { ...KEY, reference: 'ws_CO_ACCEPT_1' },
      { consistent: true },
    ))!;
    expect(tx.status).toBe('SUCCEEDED');
    const settled = tx.transitions.at(-1)!;
    expect(settled).toMatchObject({ origin: 'manual', to: 'SUCCEEDED' });
    expect(settled.evidence).toMatchObject({ source: 'operator', actor: { name: 'ana', role: 'operator' } });
    const event = tx.outbox.find((e) => e.metadata.type === 'TransactionSucceeded')!;
    expect(event.data.acceptedFromQuarantine).toMatchObject({
      quarantineId: refused.quarantineId,
      errorCode: 'FORBIDDEN_SOURCE',
      by: { name: 'ana' },
    });
    expect(again.body as Answer).toMatchObject({ repeated: true, decision: { kind: 'accepted' } });
    expect(tx.transitions.filter((t) => t.origin === 'manual')).toHaveLength(1);
    const entry = await table.store.getQuarantineEntry(refused.receivedAt, refused.quarantineId);
    expect(entry?.decision).toMatchObject({ kind: 'accepted', state: 'done', by: { name: 'ana' } });
    // The decision does not move the entry's revision: its CallbackRejected is not published again.
    const items = await table.listAll();
    const item = items.find((i) => i.id === refused.quarantineId)!;
    expect(eventsFromChange(item, { ...item, decision: undefined })).toEqual([]);
  });

  it('changes nothing but the entry when an operator dismisses it, and refuses to accept it afterwards', async () => {
    // Prepare
    const refused = await refuseForgedSuccess('ws_CO_DISMISS_1', '2026-11-21T10:00:02.000Z');
    const body = { receivedAt: refused.receivedAt, note: 'a scanner, not Safaricom' };
    // Act
    const dismissed = await decide('ana-operator-token-0123', refused.quarantineId, 'dismiss', body);
    const accepted = await decide('ana-operator-token-0123', refused.quarantineId, 'accept', body);
    // Assess
    expect(dismissed.statusCode).toBe(200);
    expect(accepted.statusCode).toBe(409);
    expect((accepted.body as Answer).error.code).toBe('QUARANTINE_DECIDED');
    const tx = (await table.store.getTransaction(
      { ...KEY, reference: 'ws_CO_DISMISS_1' },
      { consistent: true },
    ))!;
    expect(tx.status).toBe('PENDING');
    expect(tx.transitions).toHaveLength(0);
  });

  it("refuses one operator's acceptance above the account's four-eyes limit: nothing settles, the entry stays open", async () => {
    // Prepare: a forged success for the whole registered 1,000 KES, over the 500 an operator settles alone.
    const refused = await refuseForgedSuccess('ws_CO_LIMIT_1', '2026-11-21T10:00:04.000Z', '1000');
    const body = { receivedAt: refused.receivedAt, note: 'Safaricom confirmed by phone, ticket 91' };
    // Act
    const answer = await decide('ana-operator-token-0123', refused.quarantineId, 'accept', body);
    // Assess
    expect(answer.statusCode).toBe(409);
    expect((answer.body as Answer).error).toMatchObject({ code: 'QUARANTINE_NOT_ACCEPTABLE' });
    expect((answer.body as Answer).error.message).toMatch(/settles 1000, above this account's limit 500/);
    const tx = (await table.store.getTransaction(
      { ...KEY, reference: 'ws_CO_LIMIT_1' },
      { consistent: true },
    ))!;
    expect(tx.status).toBe('PENDING');
    const entry = await table.store.getQuarantineEntry(refused.receivedAt, refused.quarantineId);
    expect(entry?.decision).toBeUndefined();
  });

  it('refuses a viewer (403) and an unknown entry (404)', async () => {
    // Prepare
    const refused = await refuseForgedSuccess('ws_CO_ROLES_1', '2026-11-21T10:00:03.000Z');
    const body = { receivedAt: refused.receivedAt, note: 'looks genuine' };
    // Act
    const viewer = await decide('vic-viewer-token-012345', refused.quarantineId, 'accept', body);
    const unknown = await decide('ana-operator-token-0123', 'no-such-entry', 'dismiss', body);
    // Assess
    expect(viewer.statusCode).toBe(403);
    expect((viewer.body as Answer).error.code).toBe('FORBIDDEN_ROLE');
    expect(unknown.statusCode).toBe(404);
    expect((unknown.body as Answer).error.code).toBe('QUARANTINE_ENTRY_NOT_FOUND');
  });
});
