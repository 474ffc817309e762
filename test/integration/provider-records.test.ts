import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderRecord } from '../../shared/app/ports';
import { buildEvent } from '../../shared/domain/events';
import { createTestTable } from '../helpers/dynamo';

let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(async () => {
  await table.drop();
});

let counter = 0;
function record(overrides: Partial<ProviderRecord> = {}): ProviderRecord {
  counter += 1;
  return {
    provider: 'daraja',
    account: 'demo',
    namespace: 'c2b-validation',
    id: `TX${counter}`,
    data: { decision: 'accept', resultCode: '0', amount: { value: '10', currency: 'KES' } },
    createdAt: '2026-11-21T10:00:00.000Z',
    ...overrides,
  };
}

describe('provider records in DynamoDB Local', () => {
  it('returns a stored record and nothing for an unknown id or another namespace', async () => {
    // Prepare
    const stored = record();
    await table.store.putRecord(stored);
    // Act
    const found = await table.store.getRecord(stored);
    const unknown = await table.store.getRecord({ ...stored, id: 'nope' });
    const otherNamespace = await table.store.getRecord({ ...stored, namespace: 'c2b-account' });
    // Assess
    expect(found).toMatchObject({ namespace: 'c2b-validation', id: stored.id, data: stored.data });
    expect(unknown).toBeUndefined();
    expect(otherNamespace).toBeUndefined();
  });

  it('keeps the first record of an id and hands the standing one to a second writer', async () => {
    // Prepare
    const first = record();
    const second = { ...first, data: { decision: 'reject', resultCode: 'C2B00012' } };
    // Act
    const a = await table.store.putRecordIfAbsent(first);
    const b = await table.store.putRecordIfAbsent(second);
    // Assess
    expect(a.written).toBe(true);
    expect(b.written).toBe(false);
    expect(b.record.data).toEqual(first.data);
  });

  it('publishes a record outbox once, through the stream, when the record is first written', async () => {
    // Prepare
    const event = buildEvent(
      'C2BValidationDecided',
      'daraja:demo:X',
      'c2b-validation',
      'callback',
      '2026-11-21T10:00:00.000Z',
      {},
    );
    const withOutbox = record({ outbox: [event] });
    // Act
    await table.store.putRecordIfAbsent(withOutbox);
    await table.store.putRecordIfAbsent(withOutbox);
    const items = await table.listAll();
    // Assess
    const item = items.find((i) => String(i.pk).endsWith(`#${withOutbox.id}`));
    expect(item).toMatchObject({
      sk: 'REC',
      revision: 1,
      outbox: [expect.objectContaining({ metadata: event.metadata })],
    });
  });

  it('answers an aborted read with a storage error instead of waiting', async () => {
    // Prepare
    const controller = new AbortController();
    controller.abort();
    // Act
    const read = table.store.getRecord(record(), { signal: controller.signal });
    // Assess
    await expect(read).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
  });

  it('keeps a record with its own lifetime only that long (a hint is gone after a day, not after 400 days)', async () => {
    // Prepare: one written two days ago with a one-day lifetime, one written now.
    const old = record({
      namespace: 'hint:externalId',
      createdAt: new Date(Date.now() - 2 * 86_400_000).toISOString(),
      lifetimeSeconds: 86_400,
    });
    const fresh = record({
      namespace: 'hint:externalId',
      createdAt: new Date().toISOString(),
      lifetimeSeconds: 86_400,
    });
    await table.store.putRecord(old);
    await table.store.putRecord(fresh);
    // Act
    const [gone, kept] = await Promise.all([table.store.getRecord(old), table.store.getRecord(fresh)]);
    // Assess
    expect(gone).toBeUndefined();
    expect(kept).toMatchObject({ id: fresh.id });
  });
});
