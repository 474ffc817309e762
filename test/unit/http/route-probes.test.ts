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
import { createLocalServer } from '../../../local/server';
import { MemoryDeliveryLog } from '../../../shared/adapters/memory/delivery-log';
import { MemoryDestinationStates } from '../../../shared/adapters/memory/destination-states';
import { MemoryStatementStore } from '../../../shared/adapters/memory/statement-store';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { secretRefResolver } from '../../../shared/app/delivery/destinations-admin';
import { recordAuditAfter } from '../../../shared/app/operations/audit';
import { type RelayServices, scrubbingLogger } from '../../../shared/app/services';
import { parseConfig } from '../../../shared/config/load';
import { MANAGEMENT_ROUTE_TABLE } from '../../../shared/config/management-routes';
import { secretScrubber } from '../../../shared/config/secrets';
import { statusFor } from '../../../shared/http/error-mapping';
import { PROVIDERS } from '../../../shared/providers/registry';
import {
  ACCOUNTS,
  asWho,
  callbackProbes,
  closeProbes,
  GOOD_BODIES,
  managementProbes,
  MSISDN,
  PROBE_CONFIG,
  type ProbeTarget,
  runProbes,
  send,
  serverProbes,
} from '../../hostile/probe-battery';

const config = parseConfig(PROBE_CONFIG);

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
      refused: async (request, error) => {
        await recordAuditAfter(services, {
          actor: null,
          action: 'sign-in',
          target: null,
          outcome: 'refused',
          httpStatus: statusFor(error),
          detail: `${error.code}: ${error.message}`,
          request: {
            method: request.method ?? 'GET',
            path: '/v1/events/stream',
            sourceIp: '127.0.0.1',
            receivedAt: clock.now(),
          },
        });
      },
    }),
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
    // Arrange: a transaction the routes under /v1/transactions/{…} find.
    const registered = await send(world, {
      family: 'arrange',
      what: 'register',
      method: 'POST',
      path: '/v1/transactions',
      headers: asWho('admin', { 'content-type': 'application/json' }),
      body: JSON.stringify({ ...GOOD_BODIES.registerTransaction, msisdn: undefined }),
    });
    expect(registered.status).toBe(201);
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

describe('defects the battery found', () => {
  it('masks a phone number a sender puts in a provider path: in the answer, the quarantine and the log line', async () => {
    // Arrange
    const linesBefore = world.lines.length;
    const quarantinedBefore = world.store.quarantined.length;

    // Act
    const answer = await send(world, {
      family: 'regression',
      what: 'msisdn account',
      method: 'POST',
      path: `/v1/momo/${MSISDN}/requesttopay`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });

    // Assess
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.text).error.message).toContain('2567');
    const entry = world.store.quarantined.slice(quarantinedBefore);
    expect(entry).toHaveLength(1);
    const kept = JSON.stringify(entry) + world.lines.slice(linesBefore).join('\n') + answer.text;
    expect(kept).not.toContain(MSISDN);
  });
});
