import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { C2BValidationRecord } from '../../shared/domain/ports';
import { createTestTable } from '../helpers/dynamo';

let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(async () => {
  await table.drop();
});

function decision(reference: string, overrides: Partial<C2BValidationRecord> = {}): C2BValidationRecord {
  return {
    key: { provider: 'daraja', account: 'demo', reference },
    decision: 'accept',
    resultCode: '0',
    rule: 'all-rules-passed',
    detail: 'every configured rule passed',
    deadlineApplied: false,
    defaultApplied: false,
    sourceError: undefined,
    elapsedMs: 3,
    billRefNumber: 'ACC-001',
    amount: { value: '10', currency: 'KES' },
    msisdn: '25470****149',
    receiptId: 'r1',
    decidedAt: '2026-11-21T10:00:00.000Z',
    revision: 1,
    outbox: [],
    ...overrides,
  };
}

describe('Daraja store items in DynamoDB Local', () => {
  it('finds a loaded known C2B account number and reports an unknown one as missing', async () => {
    // Prepare
    await table.store.putC2BKnownAccount({
      account: 'demo',
      billRef: 'ACC-001',
      active: true,
      label: 'Jane',
    });
    // Act
    const known = await table.store.getC2BKnownAccount({ account: 'demo', billRef: 'ACC-001' });
    const unknown = await table.store.getC2BKnownAccount({ account: 'demo', billRef: 'ACC-999' });
    const otherAccount = await table.store.getC2BKnownAccount({ account: 'other', billRef: 'ACC-001' });
    // Assess
    expect(known).toEqual({ account: 'demo', billRef: 'ACC-001', active: true, label: 'Jane' });
    expect(unknown).toBeUndefined();
    expect(otherAccount).toBeUndefined();
  });

  it('reads a known account written by hand without `active` as active, and `active: false` as inactive', async () => {
    // The documented item format, as an operator would load it with put-item.
    await table.doc.send(
      new (await import('@aws-sdk/lib-dynamodb')).PutCommand({
        TableName: table.tableName,
        Item: { pk: 'C2BACCT#demo#HAND-1', sk: 'C2BACCT' },
      }),
    );
    await table.store.putC2BKnownAccount({
      account: 'demo',
      billRef: 'CLOSED-1',
      active: false,
      label: undefined,
    });
    expect((await table.store.getC2BKnownAccount({ account: 'demo', billRef: 'HAND-1' }))?.active).toBe(true);
    expect((await table.store.getC2BKnownAccount({ account: 'demo', billRef: 'CLOSED-1' }))?.active).toBe(
      false,
    );
  });

  it('gives up a known-account lookup when its signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      table.store.getC2BKnownAccount({ account: 'demo', billRef: 'ACC-001' }, { signal: controller.signal }),
    ).rejects.toThrow();
  });

  it('keeps the first validation decision of a TransID and returns it to a second writer', async () => {
    // Prepare
    const first = decision('RKT1', { decision: 'accept', resultCode: '0' });
    const second = decision('RKT1', {
      decision: 'reject',
      resultCode: 'C2B00012',
      decidedAt: '2026-11-21T10:00:01.000Z',
    });
    // Act
    const a = await table.store.recordC2BValidation(first);
    const b = await table.store.recordC2BValidation(second);
    // Assess
    expect(a).toEqual({ written: true, record: first });
    expect(b.written).toBe(false);
    expect(b.record).toMatchObject({ decision: 'accept', resultCode: '0', decidedAt: first.decidedAt });
    expect(await table.store.getC2BValidation(first.key)).toMatchObject({
      decision: 'accept',
      key: first.key,
    });
  });

  it('writes a reference alias once: the first target wins', async () => {
    const key = { provider: 'daraja', account: 'demo', namespace: 'ConversationID', value: 'AG_1' };
    const created = await table.store.putReferenceAlias({
      ...key,
      reference: 'ocid-1',
      createdAt: '2026-11-21T10:00:00.000Z',
    });
    const again = await table.store.putReferenceAlias({
      ...key,
      reference: 'ocid-2',
      createdAt: '2026-11-21T10:00:00.000Z',
    });
    expect([created, again]).toEqual([true, false]);
    expect(await table.store.getReferenceAlias(key)).toBe('ocid-1');
    expect(await table.store.getReferenceAlias({ ...key, value: 'AG_2' })).toBeUndefined();
  });
});
