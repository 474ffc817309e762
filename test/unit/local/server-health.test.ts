import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createLocalServer,
  type LocalServerOptions,
  READY_CHECK_TIMEOUT_MS,
  type Readiness,
  readinessOf,
} from '../../../local/server';
import { driveTimers, useDrivenTimers } from '../../helpers/driven-timers';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** The local server with handlers that must not be reached by health probes. */
async function serve(
  ready: LocalServerOptions['ready'],
): Promise<(path: string, init?: RequestInit) => Promise<Response>> {
  const unexpected = async () => ({ statusCode: 418, body: 'not a health route' });
  const server = createLocalServer({
    callback: unexpected,
    management: unexpected,
    trustForwardedFor: true,
    health: async () => ({ status: 'ok', table: 'relay-local', accounts: 3 }),
    ready,
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return (path, init = {}) =>
    fetch(`http://127.0.0.1:${port}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
}

const down: Readiness = {
  ready: false,
  checks: { dynamodb: { ok: false, error: 'ECONNREFUSED' }, eventsFile: { ok: true } },
};
const up: Readiness = { ready: true, checks: { dynamodb: { ok: true, latencyMs: 2 } } };

describe('local server health routes', () => {
  useDrivenTimers();

  it('answers readiness 503 naming what is down, while liveness stays 200', async () => {
    // Prepare
    const get = await serve(async () => down);
    // Act
    const ready = await get('/health/ready');
    const live = await get('/health/live');
    const health = await get('/health');
    // Assess
    expect(ready.status).toBe(503);
    expect(ready.headers.get('content-type')).toBe('application/json');
    expect(await ready.json()).toEqual({
      status: 'unavailable',
      ready: false,
      down: ['dynamodb'],
      checks: down.checks,
    });
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', table: 'relay-local', accounts: 3, ready: false });
  });

  it('answers readiness 200 when every dependency answers', async () => {
    const get = await serve(async () => up);
    const ready = await get('/health/ready');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', ready: true, checks: up.checks });
    expect(await (await get('/health')).json()).toMatchObject({ status: 'ok', ready: true });
  });

  it('counts a readiness function that throws as not ready', async () => {
    const get = await serve(async () => {
      throw new Error('boom');
    });
    const ready = await get('/health/ready');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ ready: false, down: ['readiness'] });
    expect((await get('/health/live')).status).toBe(200);
  });

  it('does not let a hanging readiness function hang the probes', async () => {
    // Prepare: a readiness function that never answers, and says each time it is asked.
    let asked: () => void = () => undefined;
    const askedOnce = () => new Promise<void>((resolve) => (asked = resolve));
    const get = await serve(() => {
      asked();
      return new Promise<Readiness>(() => undefined);
    });
    driveTimers();
    // Act: the guard's timer, set as readiness is asked, runs out on the driven clock.
    const probe = async (path: string) => {
      const askedNow = askedOnce();
      const answer = get(path);
      await askedNow;
      await vi.advanceTimersByTimeAsync(READY_CHECK_TIMEOUT_MS * 2);
      return answer;
    };
    const ready = await probe('/health/ready');
    const health = await probe('/health');
    // Assess: answered by the readiness guard's own timer (never by the probe's), which the answer names.
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({
      down: ['readiness'],
      checks: {
        readiness: {
          ok: false,
          error: `readiness check gave no answer within ${READY_CHECK_TIMEOUT_MS * 2} ms`,
        },
      },
    });
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', ready: false });
  });

  it('leaves other paths to the handlers', async () => {
    const get = await serve(async () => up);
    expect((await get('/health/other')).status).toBe(418);
  });

  it('answers HEAD like GET, and another method 405 naming GET and HEAD, never a handler', async () => {
    // Prepare
    const call = await serve(async () => up);
    // Act
    const head = await call('/health/live', { method: 'HEAD' });
    const post = await call('/health', { method: 'POST', body: '{}' });
    // Assess
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(await post.json()).toMatchObject({ error: { code: 'METHOD_NOT_ALLOWED' } });
  });
});

describe('readinessOf', () => {
  it('reports each check with ok and latency, and is ready only when all answer', async () => {
    const readiness = await readinessOf({
      dynamodb: async () => ({ table: 'relay-local' }),
      broken: async () => {
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { name: 'Error' });
      },
    })();
    expect(readiness.ready).toBe(false);
    expect(readiness.checks.dynamodb).toMatchObject({ ok: true, table: 'relay-local' });
    expect(readiness.checks.broken).toMatchObject({
      ok: false,
      error: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('times a stalled check out and aborts its signal', async () => {
    let aborted: AbortSignal | undefined;
    const readiness = await readinessOf(
      {
        dynamodb: (signal) => {
          aborted = signal;
          return new Promise(() => undefined);
        },
      },
      100,
    )();
    expect(readiness).toMatchObject({ ready: false, checks: { dynamodb: { ok: false } } });
    // Cut by the check's own timeout (100 ms here), which the answer names.
    expect((readiness.checks.dynamodb as { error: string }).error).toBe(
      'TimeoutError: no answer within 100 ms',
    );
    expect(aborted?.aborted).toBe(true);
  });
});
