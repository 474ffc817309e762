/**
 * The probe battery (test/hostile/probe-battery.ts, docs/security.md#the-probe-battery) on the memory
 * store, in process: the real local server, the Lambda handlers' middy chains, the router, the callback
 * path. Every probe, and every refusal checked for its record (the quarantine or the audit log).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCallbackHandler } from '../../../functions/callback/handler';
import { createManagementHandler } from '../../../functions/management/handler';
import { consoleEventStream, TransactionChangeFeed } from '../../../local/console-events';
import { localRefusalRecorder, streamRefusalRecorder } from '../../../local/relay';
import { createLocalServer } from '../../../local/server';
import { MemoryDeliveryLog } from '../../../shared/adapters/memory/delivery-log';
import { MemoryDestinationStates } from '../../../shared/adapters/memory/destination-states';
import { MemoryStatementStore } from '../../../shared/adapters/memory/statement-store';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { secretRefResolver } from '../../../shared/app/delivery/destinations-admin';
import { type RelayServices, scrubbingLogger } from '../../../shared/app/services';
import { parseConfig } from '../../../shared/config/load';
import { MANAGEMENT_ROUTE_TABLE } from '../../../shared/config/management-routes';
import { secretScrubber } from '../../../shared/config/secrets';
import { PROVIDERS } from '../../../shared/providers/registry';
import { readCsv } from '../../../shared/util/csv';
import {
  ACCOUNTS,
  asWho,
  callbackProbes,
  closeProbes,
  GOOD_BODIES,
  managementProbes,
  MSISDN,
  PROBE_CONFIG,
  REFERENCE,
  registerProbeTransaction,
  SECRETS,
  type ProbeTarget,
  runProbes,
  send,
  serverProbes,
} from '../../hostile/probe-battery';

const config = parseConfig(PROBE_CONFIG);
const DAY = '2026-11-29';

interface World extends ProbeTarget {
  records: () => number;
  url: string;
  store: MemoryStore;
  lines: string[];
  server: Server;
}

let world: World;

function startWorld(): Promise<World> {
  const lines: string[] = [];
  const at =
    (level: string) =>
    (message: string, ...fields: unknown[]) =>
      void lines.push(`${level} ${message} ${JSON.stringify(fields, errorFields)}`);
  const scrub = secretScrubber(config);
  const log = scrubbingLogger(
    { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
    scrub,
  );
  const clock = { now: () => new Date() };
  const store = new MemoryStore(clock);
  const services: RelayServices = {
    config,
    store,
    clock,
    log,
    scrub,
    statements: new MemoryStatementStore(),
    deliveries: {
      destinations: config.destinations,
      log: new MemoryDeliveryLog(),
      states: new MemoryDestinationStates(),
      resolveSecret: secretRefResolver({
        runtime: 'local',
        env: (name) =>
          name === 'PROBE_SECRET' ? `whsec_${Buffer.alloc(32, 9).toString('base64')}` : undefined,
      }),
    },
  };
  const server = createLocalServer({
    trustForwardedFor: false,
    callback: createCallbackHandler(services),
    management: createManagementHandler(services),
    ready: async () => ({ ready: true, checks: {} }),
    health: async () => ({ accounts: config.accounts.size }),
    events: consoleEventStream({
      config,
      feed: new TransactionChangeFeed(),
      refused: streamRefusalRecorder(services, false),
    }),
    // The server's own refusals (a health route's wrong method, a body over the quota) as npm start records them.
    refused: localRefusalRecorder(services),
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        store,
        lines,
        server,
        records: () => store.quarantined.length + store.audit.length,
      }),
    ),
  );
}

/** An Error logged as a field keeps its stack in the line: what a log shipper would write. */
function errorFields(_key: string, value: unknown): unknown {
  return value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;
}

beforeAll(async () => {
  world = await startWorld();
});

afterAll(async () => {
  closeProbes();
  await new Promise((resolve) => world.server.close(resolve));
});

// ---------------------------------------------------------------------------------------------------
// What is sent

describe('the probe battery over every route of the tables', () => {
  it('probes every route of the management route table as every caller, with hostile methods, paths, queries and bodies', async () => {
    // Arrange
    expect(await registerProbeTransaction(world)).toBe(201);
    const probes = MANAGEMENT_ROUTE_TABLE.flatMap(managementProbes);

    // Act
    const violations = await runProbes(world, probes);

    // Assess
    expect(violations).toEqual([]);
  });

  it('probes every provider route of every provider with hostile methods, paths, queries and bodies', async () => {
    // Arrange
    expect(PROVIDERS.map((p) => p.id).sort()).toEqual(Object.keys(ACCOUNTS).sort());
    const probes = callbackProbes();

    // Act
    const violations = await runProbes(world, probes);

    // Assess
    expect(violations).toEqual([]);
  });

  it("probes the local server's own paths: health, the event stream, paths that name no route", async () => {
    // Act
    const violations = await runProbes(world, serverProbes());

    // Assess
    expect(violations).toEqual([]);
  });
});

/** A cell a spreadsheet would run: = + - @ tab or CR first, unless a plain number (shared/util/csv.ts). */
const isFormula = (cell: string) => /^[=+\-@\t\r]/.test(cell) && !/^-?\d+(\.\d+)?$/.test(cell);

describe('every CSV export of the console', () => {
  it('defuses the formulas that senders, partners and operators stored, in every list that exports', async () => {
    // Arrange: formulas where each party writes free text: a partner's registration, an operator's name
    // and note, an anonymous sender's refused callback.
    const formula = '=HYPERLINK("http://evil.example","x")';
    const reference = '1c2d3e4f-1f2a-4b3c-9d8e-7f6a5b4c3d2e';
    const operator = { authorization: `Bearer ${SECRETS.shared}`, 'x-relay-actor': '@SUM(1+1)' };
    const json = { 'content-type': 'application/json' };
    const steps = [
      await send(world, {
        family: 'csv',
        what: 'register',
        method: 'POST',
        path: '/v1/transactions',
        headers: { ...operator, ...json },
        body: JSON.stringify({
          ...GOOD_BODIES.registerTransaction,
          reference,
          externalId: formula,
          metadata: { note: '+cmd|calc' },
        }),
      }),
      await send(world, {
        family: 'csv',
        what: 'refused callback',
        method: 'PUT',
        path: `/v1/momo/demo/${SECRETS.momoPath}/requesttopay/${encodeURIComponent(formula)}`,
        headers: json,
        body: JSON.stringify({ status: formula }),
      }),
    ];
    const refused = world.store.quarantined.at(-1)!;
    const dismissed = await send(world, {
      family: 'csv',
      what: 'dismiss',
      method: 'POST',
      path: `/v1/quarantine/${refused.id}/dismiss`,
      headers: { ...operator, ...json },
      body: JSON.stringify({ receivedAt: refused.receivedAt, note: `-2+3 ${formula}` }),
    });
    expect([...steps, dismissed].map((a) => a.status)).toEqual([201, 400, 200]);
    const lists = MANAGEMENT_ROUTE_TABLE.filter((r) => r.method === 'GET' && r.console);

    // Act
    const exports = new Map<string, string>();
    for (const route of lists) {
      const path = route.path
        .replace('{reference}', reference)
        .replace(
          /\{(\w+)\}/g,
          (_, name: string) => ({ provider: 'momo', account: 'demo', id: 'shop' })[name] ?? DAY,
        );
      const answer = await send(world, {
        family: 'csv',
        what: 'export',
        method: 'GET',
        path: `${path}?format=csv`,
        headers: asWho('admin'),
      });
      if (answer.status === 200 && answer.headers['content-type']?.startsWith('text/csv'))
        exports.set(route.path, answer.text);
    }

    // Assess: the formulas reached the exports, and no cell of any export runs.
    expect(exports.size).toBeGreaterThanOrEqual(10);
    const all = [...exports.values()].join('\n');
    for (const stored of ['HYPERLINK', '@SUM(1+1)', '-2+3']) expect(all).toContain(stored);
    const running: string[] = [];
    for (const [path, csv] of exports)
      for await (const record of readCsv([csv]))
        for (const cell of record.fields) if (isFormula(cell)) running.push(`${path}: ${cell.slice(0, 60)}`);
    expect(running).toEqual([]);
  });
});

describe('defects the battery found', () => {
  it('masks a phone number a sender puts in a provider path: in the answer, the quarantine list, the event and the log line', async () => {
    // Arrange
    const linesBefore = world.lines.length;
    const quarantinedBefore = world.store.quarantined.length;
    const path = `/v1/momo/demo/${SECRETS.momoPath}/${MSISDN}/${REFERENCE}`;

    // Act
    const answer = await send(world, {
      family: 'regression',
      what: 'msisdn kind',
      method: 'PUT',
      path,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const listed = await send(world, {
      family: 'regression',
      what: 'quarantine',
      method: 'GET',
      path: '/v1/quarantine?limit=5',
      headers: asWho('viewer'),
    });

    // Assess: the entry keeps the path as sent (accepting it reads it); nothing shown or sent out has it.
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.text).error.message).toContain('2567*****456');
    const [entry] = world.store.quarantined.slice(quarantinedBefore);
    expect(entry?.path).toContain(MSISDN);
    expect(JSON.parse(listed.text).entries[0].path).toContain('2567*****456');
    const shown = [
      answer.text,
      listed.text,
      JSON.stringify(entry?.outbox),
      ...world.lines.slice(linesBefore),
    ];
    expect(shown.join('\n')).not.toContain(MSISDN);
  });

  it('masks a phone number in the name X-Relay-Actor gives: in who signed in and in what others read of their act', async () => {
    // Arrange
    const named = { authorization: `Bearer ${SECRETS.shared}`, 'x-relay-actor': `ops ${MSISDN}` };

    // Act
    const me = await send(world, {
      family: 'regression',
      what: 'me',
      method: 'GET',
      path: '/v1/me',
      headers: named,
    });
    const paused = await send(world, {
      family: 'regression',
      what: 'pause',
      method: 'POST',
      path: '/v1/destinations/shop/pause',
      headers: named,
    });
    const listed = await send(world, {
      family: 'regression',
      what: 'list',
      method: 'GET',
      path: '/v1/destinations',
      headers: asWho('viewer'),
    });

    // Assess
    expect([me.status, paused.status, listed.status]).toEqual([200, 200, 200]);
    expect(JSON.parse(me.text).actor.name).toBe('ops 2567*****456 (shared token)');
    expect(me.text + paused.text + listed.text).not.toContain(MSISDN);
  });
});
