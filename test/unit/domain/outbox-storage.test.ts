import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { buildEvent, transactionEventData } from '../../../shared/domain/events';
import { compactOutbox, eventsFromChange, expandOutbox } from '../../../shared/domain/outbox';
import type { TransactionRecord } from '../../../shared/domain/transaction';
import { itemBytes } from '../../../scripts/cost/dynamo-units';
import type { EventEnvelope } from '../../../shared/domain/event-envelope';

/** An event as the outbox publishes it: stamped with its item's revision as stateVersion. */
const published = (event: EventEnvelope) => ({
  ...event,
  metadata: { ...event.metadata, stateVersion: expect.any(Number) as number },
});

const tx = {
  key: { provider: 'momo', account: 'demo', reference: 'b6d5c7b4-8f3e-4a51-9d1e-2f7c3a9e0b11' },
  kind: 'requesttopay',
  status: 'SUCCEEDED',
  providerTransactionId: '363440463',
  externalId: 'order-8841',
  amount: { value: '100', currency: 'EUR' },
  party: { idType: 'MSISDN', id: '46733123459' },
} as unknown as TransactionRecord;

/** The transaction item as the store writes it (top-level key attributes, the record's fields). */
const item = (outbox: unknown): Record<string, unknown> => ({
  pk: `TX#momo#demo#${tx.key.reference}`,
  sk: 'TX',
  provider: tx.key.provider,
  account: tx.key.account,
  reference: tx.key.reference,
  kind: tx.kind,
  status: tx.status,
  providerTransactionId: tx.providerTransactionId,
  externalId: tx.externalId,
  amount: { currency: 'EUR', value: '100' },
  party: tx.party,
  revision: 2,
  outbox,
});

const succeeded = buildEvent(
  'TransactionSucceeded',
  'momo:demo:b6d5c7b4-8f3e-4a51-9d1e-2f7c3a9e0b11',
  'SUCCEEDED',
  'callback',
  '2026-11-21T10:00:00.000Z',
  { ...transactionEventData(tx, '2026-11-21T10:00:00.000Z'), note: 'first callback' },
);

/** Through DynamoDB's representation and back, as the stream delivers the new image. */
const streamed = (image: Record<string, unknown>) =>
  unmarshall(marshall(image, { removeUndefinedValues: true }));

describe('the outbox as a transaction item stores it', () => {
  it('publishes the same event from the stored item, whatever the order of its fields', () => {
    // Prepare
    const stored = item(undefined);
    stored.outbox = compactOutbox([succeeded], stored);

    // Act
    const events = eventsFromChange({ revision: 1 }, streamed(stored));

    // Assess
    expect(events).toEqual([published(succeeded)]);
  });

  it('stores what the item already holds once: the event data shrinks to what is its own', () => {
    // Prepare
    const full = item([succeeded]);
    const compact = item(undefined);
    compact.outbox = compactOutbox([succeeded], compact);

    // Act
    const [entry] = compact.outbox as Array<{ data: Record<string, unknown>; metadata: object }>;

    // Assess: only the fields the item has no equal of stay; the correlation id is the item's key
    expect(Object.keys(entry!.data).sort()).toEqual(['note', 'reason', 'receivedAt']);
    expect(entry!.metadata).not.toHaveProperty('correlationId');
    const saved =
      itemBytes(marshall(full, { removeUndefinedValues: true }) as never) -
      itemBytes(marshall(compact, { removeUndefinedValues: true }) as never);
    expect(saved).toBeGreaterThan(150);
  });

  it('keeps a field whose value differs from the item’s (an event about an earlier state)', () => {
    // Prepare
    const stored = item(undefined);
    const earlier = { ...succeeded, data: { ...succeeded.data, status: 'PENDING' } };

    // Act
    stored.outbox = compactOutbox([earlier], stored);

    // Assess
    expect((stored.outbox as Array<{ data: object }>)[0]!.data).toMatchObject({ status: 'PENDING' });
    expect(eventsFromChange(undefined, streamed(stored))).toEqual([published(earlier)]);
  });

  it('reads an outbox stored whole before the compact form, unchanged', () => {
    // Prepare: an item written by an earlier version (full events, no fromItem)
    const old = streamed(item([succeeded]));

    // Act
    const events = eventsFromChange({ revision: 1 }, old);
    const read = expandOutbox(old.outbox, old);

    // Assess
    expect(events).toEqual([published(succeeded)]);
    expect(read).toEqual([succeeded]);
  });

  it('leaves the correlation id stored when it is not the item’s own key', () => {
    // Prepare
    const stored = item(undefined);
    const other = { ...succeeded, metadata: { ...succeeded.metadata, correlationId: 'momo:demo:other' } };

    // Act
    stored.outbox = compactOutbox([other], stored);

    // Assess
    expect((stored.outbox as Array<{ metadata: object }>)[0]!.metadata).toMatchObject({
      correlationId: 'momo:demo:other',
    });
    expect(eventsFromChange(undefined, streamed(stored))).toEqual([published(other)]);
  });
});
