import { describe, expect, it } from 'vitest';
import { awsReadUnits } from '../../../scripts/bench-statements';

describe('the statement bench: read units as AWS bills them', () => {
  it('bills a query that found nothing 0.5, which DynamoDB Local bills 0, and keeps a larger count', () => {
    expect(awsReadUnits('QueryCommand', {}, { ConsumedCapacity: { CapacityUnits: 0 } })).toBe(0.5);
    expect(awsReadUnits('QueryCommand', {}, {})).toBe(0.5);
    expect(awsReadUnits('QueryCommand', {}, { ConsumedCapacity: { CapacityUnits: 2 } })).toBe(2);
    expect(awsReadUnits('GetCommand', {}, { ConsumedCapacity: { CapacityUnits: 0 } })).toBe(0.5);
  });

  it('bills each key a BatchGetItem read 0.5, found or not, and none of the keys left unprocessed', () => {
    const keys = (n: number) => ({ t: { Keys: Array.from({ length: n }, (_, i) => ({ pk: `k${i}` })) } });
    // 100 keys asked, 10 left unprocessed, 60 found (Local: 30 units for the found ones only).
    const answer = { ConsumedCapacity: [{ CapacityUnits: 30 }], UnprocessedKeys: keys(10) };
    expect(awsReadUnits('BatchGetItemCommand', { RequestItems: keys(100) }, answer)).toBe(45);
    expect(awsReadUnits('BatchGetCommand', { RequestItems: keys(100) }, answer)).toBe(45);
    // Large items: Local's count (by item size) stands when it is above the least charge.
    expect(
      awsReadUnits(
        'BatchGetCommand',
        { RequestItems: keys(2) },
        { ConsumedCapacity: [{ CapacityUnits: 3 }] },
      ),
    ).toBe(3);
  });

  it('leaves writes to the 1 KB rule: no read units for them', () => {
    expect(awsReadUnits('PutCommand', {}, { ConsumedCapacity: { CapacityUnits: 1 } })).toBeUndefined();
  });
});
