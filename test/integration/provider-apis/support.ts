import type { StatusApiDeps, StatusQuery } from '../../../shared/providers/types';
import type { SimulatorOptions } from '../../../simulator/options';
import { ManualClock } from '../../../simulator/core/clock';
import { createSimulator, type Simulator } from '../../../simulator/server';

/** A quiet simulator on a free port, with fast payers and compressed provider time. */
export function startSim(options: SimulatorOptions = {}): Promise<Simulator> {
  return createSimulator({ port: 0, log: () => {}, approvalDelayMs: 20, timeScale: 0.01, ...options });
}

/**
 * `startSim` on a `ManualClock`: the payer answers and tokens die only when the test calls `clock.advance`,
 * so "the token is still alive at the first check" holds however slow the machine is.
 */
export async function startHeldSim(
  options: SimulatorOptions = {},
): Promise<{ sim: Simulator; clock: ManualClock }> {
  const clock = new ManualClock();
  return { sim: await startSim({ ...options, clock }), clock };
}

/** Real fetch (counted), real clock, sleeps shortened to 1 ms so retries and backoff cost nothing. */
export function liveDeps() {
  const calls: { method: string; url: string }[] = [];
  const warnings: { message: string; extra: Record<string, unknown>[] }[] = [];
  const sleeps: number[] = [];
  const deps: StatusApiDeps = {
    fetch: ((input: string | URL, init?: RequestInit) => {
      calls.push({ method: init?.method ?? 'GET', url: String(input) });
      return fetch(input, init);
    }) as typeof fetch,
    now: () => Date.now(),
    sleep: (ms) => {
      sleeps.push(ms);
      return new Promise((resolve) => setTimeout(resolve, 1));
    },
    log: { warn: (message, ...extra) => warnings.push({ message, extra }), info: () => {} },
  };
  return { deps, calls, warnings, sleeps };
}

export function statusQuery(
  kind: string,
  reference: string,
  overrides: Partial<StatusQuery> = {},
): StatusQuery {
  return {
    kind,
    reference,
    amount: undefined,
    msisdn: undefined,
    externalId: undefined,
    providerTransactionId: undefined,
    attributes: {},
    createdAt: new Date().toISOString(),
    callbackBase: 'http://localhost:1/v1/test/demo',
    ...overrides,
  };
}

/** Waits until `predicate` holds (polling every 10 ms), or fails after `timeoutMs`. */
export async function until(what: string, predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The simulator's view of one of its transactions (status, outcome…). */
export function simTransaction(
  sim: Simulator,
  provider: string,
  reference: string,
): Record<string, unknown> | undefined {
  return (sim.transactions(provider) as Record<string, unknown>[]).find((t) => t.reference === reference);
}

export async function http(
  sim: Simulator,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const res = await fetch(`${sim.url}${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}
