/**
 * Issue 32 item 2: the management route table (shared/config/management-routes.ts) drives the router and
 * the local server; every route of the table is matched, gated by its role and sent to the management
 * function, so a route added to the table is served by both without another list to edit. The IAM and
 * console routes derived from it are checked on the synthesized templates (test/infra/configurations.test.ts,
 * test/infra/console.test.ts).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalServer } from '../../../local/server';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { parseConfig } from '../../../shared/config/load';
import {
  MANAGEMENT_ROUTE_TABLE,
  type ManagementRoute,
  routesAt,
} from '../../../shared/config/management-routes';
import { handleManagementRequest } from '../../../shared/http/management-router';
import type { InboundRequest } from '../../../shared/http/types';

const VIEWER = 'viewer-token-0123456789';
const config = parseConfig({
  management: { auth: 'bearer', tokens: [{ name: 'vic', role: 'viewer', token: VIEWER }] },
  accounts: { momo: { demo: { pathSecret: 'momo-path-secret-0123' } } },
});
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const services = {
  config,
  store: new MemoryStore(),
  clock: { now: () => new Date('2026-11-29T10:00:00.000Z') },
  log: silent,
  scrub: (s: string) => s,
};

/** A path of the route with each parameter filled in. */
const concrete = (route: ManagementRoute) => route.path.replace(/\{([^}]+)\}/g, (_, name) => `x-${name}`);

async function ask(method: string, path: string, token?: string) {
  const request: InboundRequest = {
    requestId: 'req-1',
    method,
    path,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    query: {},
    rawBody: Buffer.alloc(0),
    sourceIp: '192.0.2.10',
    receivedAt: services.clock.now(),
  };
  const res = await handleManagementRequest(services, request);
  return { status: res.statusCode, body: res.body as any, headers: res.headers ?? {} };
}

describe('the management route table', () => {
  it('declares each route once, each use case once', () => {
    // Act
    const keys = MANAGEMENT_ROUTE_TABLE.map((r) => `${r.method} ${r.path}`);
    const useCases = MANAGEMENT_ROUTE_TABLE.map((r) => r.useCase);
    // Assess
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(useCases).size).toBe(useCases.length);
  });

  it('finds every route at its own path, a literal segment before a parameter', () => {
    for (const route of MANAGEMENT_ROUTE_TABLE) {
      // Act
      const found = routesAt(concrete(route)).filter((m) => m.route.method === route.method);
      // Assess
      expect(
        found.map((m) => m.route.useCase),
        route.path,
      ).toEqual([route.useCase]);
    }
    expect(routesAt('/v1/transactions/counts').map((m) => m.route.useCase)).toEqual(['countTransactions']);
    expect(routesAt('/v1/transactions/a/b/c/d/e/f/g')).toEqual([]);
  });

  it('routes each of its routes in the router: sign-in first, its role enforced, its method only', async () => {
    for (const route of MANAGEMENT_ROUTE_TABLE) {
      const path = concrete(route);
      // Act
      const anonymous = await ask(route.method, path);
      const viewer = await ask(route.method, path, VIEWER);
      const wrong = await ask(route.method === 'GET' ? 'DELETE' : 'PUT', path, VIEWER);
      // Assess
      expect(anonymous.status, `${route.method} ${route.path} without a token`).toBe(401);
      if (route.role === 'viewer') expect([401, 403], route.path).not.toContain(viewer.status);
      else {
        expect(viewer.status, `${route.method} ${route.path} as a viewer`).toBe(403);
        expect(viewer.body.error.message).toBe(`${route.what} needs the ${route.role} role; vic has viewer`);
      }
      expect(wrong.status, `${route.path} with a wrong method`).toBe(405);
      expect(wrong.headers.allow?.split(', ')).toContain(route.method);
    }
  });

  it('answers 404 for a path no route has', async () => {
    // Act
    const unknown = await ask('GET', '/v1/transactions/a/b/c/d/e/f/g', VIEWER);
    // Assess
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('ROUTE_NOT_FOUND');
  });
});

describe('the local server, from the route table', () => {
  let server: Server;
  let base: string;
  const reached: string[] = [];
  beforeAll(async () => {
    const answer = (fn: string) => async (event: { rawPath: string }) => {
      reached.push(`${fn} ${event.rawPath}`);
      return { statusCode: 200, body: '{}' };
    };
    server = createLocalServer({
      callback: answer('callback') as never,
      management: answer('management') as never,
      trustForwardedFor: false,
      health: async () => ({}),
      ready: async () => ({ ready: true, checks: {} }),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('sends every route of the table to the management function, and the rest to the callback function', async () => {
    // Prepare
    const paths = MANAGEMENT_ROUTE_TABLE.map(concrete);
    // Act
    for (const path of [...paths, '/v1/momo/demo/requesttopay/ref-1', '/v1/transactions/a/b/c/d/e/f/g'])
      await fetch(`${base}${path}`, { method: 'POST', body: '{}' });
    // Assess
    expect(reached).toEqual([
      ...paths.map((path) => `management ${path}`),
      'callback /v1/momo/demo/requesttopay/ref-1',
      'callback /v1/transactions/a/b/c/d/e/f/g',
    ]);
  });
});
