import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { ackBudgetFor, DEFAULT_ACK_BUDGETS } from '../../../shared/app/buffer/ingress-buffer';
import { ANSWER_MARGIN_MS } from '../../../shared/app/callbacks/receive-callback';
import { BUFFERED_HEADER, receiveCallback } from '../../../shared/http/callback-endpoint';
import { parseConfig } from '../../../shared/config/load';
import type { InboundRequest } from '../../../shared/http/types';
import { sha256Hex } from '../../../shared/util/ids';
import { callbackWorld } from '../../helpers/callback-world';
import { aborted, driveTimers, useDrivenTimers, watched } from '../../helpers/driven-timers';
import { MemoryIngressBuffer, RecordingMetrics } from '../../helpers/ingress-buffer';
import { registered } from '../../helpers/reports';

const MOMO_SECRET = 'momo-path-secret-0123456789';
const REFERENCE = '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f';
const BODY = readFileSync(
  new URL('../../fixtures/momo/requesttopay-successful.json', import.meta.url),
  'utf8',
);

function configWith(ackBudgets: Record<string, unknown> = { momo: { storeMs: 150, ackMs: 600 } }) {
  return parseConfig({
    management: { bearerToken: 'management-token-0123456789' },
    ackBudgets,
    accounts: { momo: { demo: { pathSecret: MOMO_SECRET, currency: 'EUR', confirmSuccess: false } } },
  });
}

function setup(options: { buffer?: boolean; store?: MemoryStore } = {}) {
  const buffer = new MemoryIngressBuffer();
  const metrics = new RecordingMetrics();
  const world = callbackWorld({
    config: configWith(),
    ...(options.store ? { store: options.store } : {}),
    services: { metrics, ...(options.buffer === false ? {} : { ingressBuffer: buffer }) },
  });
  return { ...world, buffer, metrics };
}

function momoCallback(body = BODY, path = `/v1/momo/demo/${MOMO_SECRET}/requesttopay/${REFERENCE}`) {
  const request: InboundRequest = {
    requestId: 'req-1',
    method: 'PUT',
    path,
    headers: { 'content-type': 'application/json', authorization: 'Bearer not-for-storage' },
    query: {},
    rawBody: Buffer.from(body, 'utf8'),
    sourceIp: '198.51.100.7',
    receivedAt: new Date('2026-11-21T10:00:00.000Z'),
  };
  return request;
}

useDrivenTimers();

describe('receiveCallback with an ingress buffer', () => {
  it('buffers a callback the store refuses and answers the provider its normal ack', async () => {
    // Prepare
    const { store, buffer, services } = setup();
    await store.createTransaction(registered());
    store.failure = 'error';

    // Act
    const response = await receiveCallback(services, momoCallback());

    // Assess
    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({ received: true, duplicate: false });
    expect(response.headers?.[BUFFERED_HEADER]).toBe('true');
    expect(buffer.messages).toHaveLength(1);
    const message = JSON.parse(buffer.messages[0]!.body);
    expect(message).toMatchObject({
      version: 1,
      kind: 'callback',
      requestId: 'req-1',
      provider: 'momo',
      account: 'demo',
      route: 'callback',
      params: { kind: 'requesttopay', referenceId: REFERENCE },
      method: 'PUT',
      path: `/v1/momo/demo/{secret}/requesttopay/${REFERENCE}`,
      sourceIp: '198.51.100.7',
      receivedAt: '2026-11-21T10:00:00.000Z',
      body: BODY,
      authenticated: false,
      confirmUnsignedSuccess: false,
      verification: { pathSecret: 'verified' },
      rawBodySha256: sha256Hex(Buffer.from(BODY)),
    });
    expect(message.why).toContain('simulated outage');
  });

  it('never puts the path secret or credential headers into the buffered message', async () => {
    // Prepare
    const { store, buffer, services } = setup();
    store.failure = 'error';

    // Act
    await receiveCallback(services, momoCallback());

    // Assess
    const text = buffer.messages[0]!.body;
    expect(text).not.toContain(MOMO_SECRET);
    expect(text).not.toContain('not-for-storage');
    expect(JSON.parse(text).headers).toEqual({ 'content-type': 'application/json' });
  });

  it('answers 503 when the buffer fails too', async () => {
    // Prepare
    const { store, buffer, services, lines } = setup();
    store.failure = 'error';
    buffer.failure = 'error';

    // Act
    const response = await receiveCallback(services, momoCallback());

    // Assess
    expect(response.statusCode).toBe(503);
    expect(response.body).toMatchObject({ error: { code: 'STORAGE_UNAVAILABLE' } });
    // The cause (SDK text, ARNs) is logged, never answered.
    expect(JSON.stringify(response.body)).not.toContain('ingress buffer failed');
    const logged = lines.find((l) => l.message === 'callback not stored: storage unavailable');
    expect(JSON.stringify(logged?.fields)).toContain('ingress buffer failed');
  });

  it('answers 503 at the ack budget when the store stalls and the buffer hangs', async () => {
    // Prepare
    const { store, buffer, services } = setup();
    store.failure = 'hang';
    buffer.failure = 'hang';
    driveTimers();

    // Act: the request's clock runs to MoMo's ack budget (600 ms) less the answer's margin.
    const answer = watched(receiveCallback(services, momoCallback()));
    await vi.advanceTimersByTimeAsync(600 - ANSWER_MARGIN_MS);

    // Assess: answered then (without the budget the answer would never come), the buffer's call cut.
    expect(answer.settled()).toBe(true);
    expect((await answer.promise).statusCode).toBe(503);
    await aborted(buffer.signals[0]);
  });

  it('cuts a stalled store with its abort signal at the store budget, then buffers and acks', async () => {
    // Prepare
    const store = new MemoryStore();
    await store.createTransaction(registered());
    store.failure = 'hang';
    const signals: (AbortSignal | undefined)[] = [];
    const recordReceipt = store.recordReceipt.bind(store);
    store.recordReceipt = (input, options) => {
      signals.push(options?.signal);
      return recordReceipt(input, options);
    };
    const { buffer, services } = setup({ store });

    // Act
    const response = await receiveCallback(services, momoCallback());

    // Assess
    expect(response.statusCode).toBe(200);
    expect(response.headers?.[BUFFERED_HEADER]).toBe('true');
    expect(signals.length).toBeGreaterThan(0);
    expect(signals.every((s) => s?.aborted)).toBe(true);
    expect(JSON.parse(buffer.messages[0]!.body).why).toContain('did not answer within');
  });

  it('answers 503 as before when no buffer is wired and the store is down', async () => {
    // Prepare
    const { store, services } = setup({ buffer: false });
    store.failure = 'error';

    // Act
    const response = await receiveCallback(services, momoCallback());

    // Assess
    expect(response.statusCode).toBe(503);
  });

  it('does not buffer a refusal: a wrong path secret is a 401, whatever the store does', async () => {
    // Prepare
    const { store, buffer, services } = setup();
    store.failure = 'error';

    // Act
    const response = await receiveCallback(
      services,
      momoCallback(BODY, `/v1/momo/demo/wrong-secret-0123456789/requesttopay/${REFERENCE}`),
    );

    // Assess
    expect(response.statusCode).toBe(401);
    expect(buffer.messages).toHaveLength(0);
  });

  it('stores directly and leaves the buffer alone while the store answers', async () => {
    // Prepare
    const { store, buffer, services } = setup();
    await store.createTransaction(registered());

    // Act
    const response = await receiveCallback(services, momoCallback());

    // Assess
    expect(response.statusCode).toBe(200);
    expect(response.headers?.[BUFFERED_HEADER]).toBeUndefined();
    expect(buffer.messages).toHaveLength(0);
    expect(store.published.map((e) => e.metadata.type)).toEqual(['TransactionSucceeded']);
  });
});

describe('callback metrics', () => {
  it('writes no metric for an acked callback (the silence tickets read the poller’s SilentProviders), and logs its ack time', async () => {
    // Prepare
    const { store, metrics, lines, services } = setup();
    await store.createTransaction(registered());

    // Act
    await receiveCallback(services, momoCallback());

    // Assess: a series on every callback billed all month (issue 28); the log line below counts them.
    expect(metrics.counts).toEqual([]);
    // The ack time per provider is the log line's ackedInMs (the dashboard's Logs Insights query); the alarm
    // watches the callback function's own duration, so no metric series is written for it.
    expect(metrics.timings).toEqual([]);
    const handled = lines.find((l) => l.message === 'callback handled');
    expect(handled?.fields[0]).toMatchObject({
      provider: 'momo',
      account: 'demo',
      ackedInMs: expect.any(Number),
    });
    expect((handled?.fields[0] as { ackedInMs: number }).ackedInMs).toBeGreaterThanOrEqual(0);
    expect(metrics.total('CallbacksBuffered')).toBe(0);
  });

  it('counts a buffered callback as buffered, per provider', async () => {
    // Prepare
    const { store, metrics, services } = setup();
    store.failure = 'error';

    // Act
    await receiveCallback(services, momoCallback());

    // Assess
    expect(metrics.counts).toContainEqual({
      name: 'CallbacksBuffered',
      value: 1,
      dimensions: { provider: 'momo' },
    });
  });

  it('counts every refusal, a known provider’s or not, in one series without dimensions', async () => {
    // Prepare
    const { metrics, services } = setup();

    // Act
    await receiveCallback(services, momoCallback(BODY, `/v1/momo/demo/wrong-secret-0123456789/x/y`));
    await receiveCallback(services, momoCallback(BODY, '/v1/nobody/demo/x'));

    // Assess
    expect(metrics.counts.filter((c) => c.name === 'CallbacksRejected').map((c) => c.dimensions)).toEqual([
      undefined,
      undefined,
    ]);
    expect(metrics.total('CallbacksRejected')).toBe(2);
  });

  it('counts nothing as buffered when neither the store nor the buffer took the callback', async () => {
    // Prepare
    const { store, buffer, metrics, services } = setup();
    store.failure = 'error';
    buffer.failure = 'error';

    // Act
    await receiveCallback(services, momoCallback());

    // Assess
    expect(metrics.total('CallbacksBuffered')).toBe(0);
  });
});

describe('ack budgets', () => {
  it('keeps every default inside its provider timeout, with room for the buffer', () => {
    // Assess
    expect(DEFAULT_ACK_BUDGETS.momo!.ackMs).toBeLessThan(2000);
    expect(DEFAULT_ACK_BUDGETS.airtel!.ackMs).toBeLessThan(2000);
    expect(DEFAULT_ACK_BUDGETS.daraja!.ackMs).toBeLessThan(8000);
    for (const budget of Object.values(DEFAULT_ACK_BUDGETS))
      expect(budget.ackMs - budget.storeMs).toBeGreaterThanOrEqual(500);
  });

  it('takes a provider budget from the config, and the default for the others', () => {
    // Prepare
    const config = configWith({ airtel: { storeMs: 900, ackMs: 1500 } });

    // Act / Assess
    expect(ackBudgetFor(config, 'airtel')).toEqual({ storeMs: 900, ackMs: 1500 });
    expect(ackBudgetFor(config, 'momo')).toEqual(DEFAULT_ACK_BUDGETS.momo);
    expect(ackBudgetFor(config, 'someday')).toEqual({ storeMs: 1200, ackMs: 1800 });
  });

  it('refuses a budget that leaves the buffer no time, naming the dotted key', () => {
    // Act / Assess
    expect(() => configWith({ momo: { storeMs: 1800, ackMs: 1850 } })).toThrow(/ackBudgets\.momo\.ackMs/);
    expect(() => configWith({ momo: { storeMs: 1200 } })).toThrow(/ackBudgets\.momo\.ackMs/);
  });

  it('counts the time before the handler (API Gateway, a cold start) against the ack budget', async () => {
    // Prepare: MoMo's store budget 1000 ms of 1600; the request waited 700 ms; the store hangs.
    const { store, buffer, services } = setup();
    services.config = configWith({ momo: { storeMs: 1000, ackMs: 1600 } });
    store.failure = 'hang';
    const waited = { ...momoCallback(), waitedMs: 700 };

    driveTimers();

    // Act: the request's clock runs 300 ms.
    const answer = watched(receiveCallback(services, waited));
    await vi.advanceTimersByTimeAsync(300);

    // Assess: buffered after what was left of the store budget (300 ms), not a full 1000 ms of its own.
    expect(answer.settled()).toBe(true);
    expect((await answer.promise).statusCode).toBe(200);
    expect(buffer.messages).toHaveLength(1);
  });

  it('still stores a callback in a healthy store when a long cold start used up the whole budget', async () => {
    // Prepare: no buffer; the request waited past MoMo's whole ack budget.
    const { store, services } = setup({ buffer: false });
    await store.createTransaction(registered());
    const late = { ...momoCallback(), waitedMs: 2500 };

    // Act
    const response = await receiveCallback(services, late);

    // Assess: acked late and kept, not a 503 that loses it (MoMo never retries).
    expect(response.statusCode).toBe(200);
    expect(store.receiptsOf({ provider: 'momo', account: 'demo', reference: REFERENCE })).toHaveLength(1);
  });

  it('answers a refusal inside the ack budget even when the quarantine write hangs', async () => {
    // Prepare: malformed JSON on a MoMo route after 450 ms of waiting; the quarantine write hangs.
    const { store, services } = setup();
    store.failure = 'hang';
    const refused = { ...momoCallback('{not json'), waitedMs: 450 };

    driveTimers();

    // Act: the request's clock runs to what is left of the ack budget (600 - 20 - 450 = 130 ms).
    const answer = watched(receiveCallback(services, refused));
    await vi.advanceTimersByTimeAsync(600 - ANSWER_MARGIN_MS - 450);

    // Assess: answered then, not after the quarantine's own 1 s wait.
    expect(answer.settled()).toBe(true);
    expect((await answer.promise).statusCode).toBe(400);
  });
});
