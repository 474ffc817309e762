import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { registerFromEvent } from '../../../shared/app/transactions/register-transaction';
import { parseConfig } from '../../../shared/config/load';
import { StorageUnavailableError } from '../../../shared/domain/errors';
import { REGISTRATION_EVENTS_REFUSED_METRIC } from '../../../shared/config/metric-names';
import { secretScrubber } from '../../../shared/config/secrets';
import { statusFor } from '../../../shared/http/error-mapping';

const config = parseConfig({
  management: { bearerToken: 'a-long-enough-token' },
  accounts: { momo: { demo: { pathSecret: 'momo-path-secret-0123' } } },
});
const REF = '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f';
const body = {
  provider: 'momo',
  account: 'demo',
  kind: 'requesttopay',
  reference: REF,
  amount: '100',
  currency: 'EUR',
};

function setup() {
  const store = new MemoryStore();
  const warnings: string[] = [];
  const counts: Record<string, number> = {};
  const deps = {
    config,
    store,
    clock: { now: () => new Date('2026-11-23T10:00:00.000Z') },
    log: {
      debug() {},
      info() {},
      warn: (message: string) => void warnings.push(message),
      error() {},
    },
    scrub: secretScrubber(config),
    metrics: {
      count: (name: string, value = 1) => void (counts[name] = (counts[name] ?? 0) + value),
      timing: () => {},
      flush: () => {},
    },
    statusOf: statusFor,
  };
  return { store, deps, warnings, counts };
}

describe('registerFromEvent', () => {
  it('registers the body of a TransactionInitiated event, as the management API does', async () => {
    // Prepare
    const { store, deps } = setup();
    // Act
    const result = await registerFromEvent(deps, { id: 'e1', detail: body });
    // Assess
    expect(result).toEqual({ registered: true, created: true });
    const tx = await store.getTransaction({ provider: 'momo', account: 'demo', reference: REF });
    expect(tx?.registered).toBe(true);
    expect(tx?.reconcile?.dueAt).toBe('2026-11-23T10:05:00.000Z');
  });

  it('accepts the relay envelope shape with the body under detail.data', async () => {
    // Prepare
    const { deps } = setup();
    // Act
    const result = await registerFromEvent(deps, {
      id: 'e2',
      detail: { metadata: { type: 'TransactionInitiated' }, data: body },
    });
    // Assess
    expect(result.registered).toBe(true);
  });

  it('logs and drops a refused registration instead of throwing (a retry cannot fix it)', async () => {
    // Prepare
    const { deps, warnings } = setup();
    // Act
    const result = await registerFromEvent(deps, { id: 'e3', detail: { ...body, reference: 'not-a-uuid' } });
    // Assess
    expect(result.registered).toBe(false);
    expect(warnings).toEqual(['TransactionInitiated event refused']);
  });

  it('records a refused event where a refused POST /v1/transactions is recorded (the audit log), and counts it', async () => {
    // Prepare
    const { store, deps, counts } = setup();

    // Act
    const result = await registerFromEvent(deps, {
      id: 'e5',
      source: 'partner.orders',
      detail: { ...body, account: 'nowhere' },
    });

    // Assess
    expect(result.registered).toBe(false);
    expect(store.audit).toHaveLength(1);
    expect(store.audit[0]).toMatchObject({
      actor: null,
      action: 'transaction.register',
      outcome: 'refused',
      httpStatus: 404,
      method: 'EVENT',
      path: 'TransactionInitiated/e5',
      sourceIp: 'partner.orders',
    });
    expect(store.audit[0]!.detail).toMatch(/^UNKNOWN_ACCOUNT: /);
    expect(counts[REGISTRATION_EVENTS_REFUSED_METRIC]).toBe(1);
  });

  it('audits and counts nothing for an event it registers', async () => {
    // Prepare
    const { store, deps, counts } = setup();

    // Act
    await registerFromEvent(deps, { id: 'e6', detail: body });

    // Assess
    expect(store.audit).toEqual([]);
    expect(counts).toEqual({});
  });

  it('throws on a storage outage so EventBridge retries', async () => {
    // Prepare
    const { store, deps } = setup();
    store.failure = 'error';
    // Act / Assess
    await expect(registerFromEvent(deps, { id: 'e4', detail: body })).rejects.toBeInstanceOf(
      StorageUnavailableError,
    );
  });
});
