/**
 * Every console read has a bounded cost per request (issue 27 item 5): counts and reports read at most a
 * fixed number of transactions and say how to go on; the event streams share one change feed.
 */
import { describe, expect, it } from 'vitest';
import { TransactionChangeFeed } from '../../../local/console-events';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { consoleReport } from '../../../shared/app/console/console-report';
import { countTransactions, MAX_COUNTED } from '../../../shared/app/console/list-transactions';
import type { TransactionSummary } from '../../../shared/app/management-answers';
import { MAX_REPORTED, reconciliationReport } from '../../../shared/app/reconciliation/reconciliation-report';
import { parseConfig } from '../../../shared/config/load';
import { TooManyStreamsError } from '../../../shared/domain/errors';
import type { TransactionRecord } from '../../../shared/domain/transaction';
import { storedTransaction } from '../../helpers/reports';

const config = parseConfig({
  management: { bearerToken: 'a-long-enough-token' },
  accounts: { momo: { demo: { currency: 'EUR' } } },
});
const NOW = Date.parse('2026-11-26T12:00:00.000Z');

function pending(i: number): TransactionRecord {
  const at = new Date(NOW - 1000 - i * 60_000).toISOString();
  const reference = `ref-${String(i).padStart(5, '0')}`;
  return storedTransaction({ provider: 'momo', account: 'demo', reference }, at, {
    status: i % 4 === 0 ? 'SUCCEEDED' : 'PENDING',
  });
}

/** A memory store holding `n` transactions of the last days, counting the items read. */
async function storeWith(n: number) {
  const clock = { now: () => new Date(NOW) };
  const store = new MemoryStore(clock);
  for (let i = 0; i < n; i++) await store.createTransaction(pending(i));
  const reads = { items: 0 };
  const getTransaction = store.getTransaction.bind(store);
  store.getTransaction = (key) => {
    reads.items++;
    return getTransaction(key);
  };
  return { store, reads, deps: { config, store, clock } };
}

describe('counts over a large range', () => {
  it('read at most MAX_COUNTED transactions per request and continue with next until the whole range is counted', async () => {
    // Prepare: more transactions in the range than one request counts.
    const held = MAX_COUNTED + 201;
    const { deps, reads } = await storeWith(held);
    const query = { from: '2026-11-25', to: '2026-11-26' };
    // Act
    const first = await countTransactions(deps, query);
    const readByFirst = reads.items;
    const rest = await countTransactions(deps, { ...query, cursor: first.next! });
    // Assess
    expect(readByFirst).toBeLessThanOrEqual(MAX_COUNTED);
    expect(first).toMatchObject({ complete: false, total: MAX_COUNTED });
    expect(first.next).toEqual(expect.any(String));
    expect(first.countedFrom).toBe(pending(MAX_COUNTED - 1).createdAt);
    expect(rest).toMatchObject({ complete: true, next: null, countedFrom: null, total: 201 });
    expect(first.total + rest.total).toBe(held);
    expect(first.counts.SUCCEEDED! + rest.counts.SUCCEEDED!).toBe(Math.ceil(held / 4));
  });

  it('answer a range that fits one request as complete, with no next', async () => {
    // Prepare
    const { deps } = await storeWith(30);
    // Act
    const counts = await countTransactions(deps, { from: '2026-11-25', to: '2026-11-26' });
    // Assess
    expect(counts).toMatchObject({ complete: true, next: null, total: 30 });
  });
});

describe('the reports over a large range', () => {
  it('read at most MAX_REPORTED transactions, report the newest, and continue with next', async () => {
    // Prepare
    const held = MAX_REPORTED + 10;
    const { deps, store, reads } = await storeWith(held);
    const range = { from: '2026-11-24T00:00:00.000Z', to: '2026-11-26T23:59:59.999Z' };
    // Act
    const report = await consoleReport(deps, range);
    const readByReport = reads.items;
    const older = await reconciliationReport(store, range, report.next!);
    // Assess
    expect(readByReport).toBeLessThanOrEqual(MAX_REPORTED);
    expect(report).toMatchObject({ complete: false, transactions: MAX_REPORTED });
    expect(report.reportedFrom).toBe(pending(MAX_REPORTED - 1).createdAt);
    expect(older).toMatchObject({ complete: true, next: null, transactions: 10 });
  });
});

const change = (reference: string, updatedAt: string) => ({ reference, updatedAt }) as TransactionSummary;

describe('the change feed shared by all event streams', () => {
  it('hands each change once to every open stream, however often it is published', () => {
    // Prepare: 25 streams on one feed.
    const feed = new TransactionChangeFeed();
    const received = Array.from({ length: 25 }, () => [] as string[]);
    received.forEach((list) => feed.subscribe((c) => list.push(c.reference)));
    // Act: the pump reads one batch twice (a retried batch), then a second change.
    feed.publish(change('a', '2026-11-26T12:00:00.000Z'));
    feed.publish(change('a', '2026-11-26T12:00:00.000Z'));
    feed.publish(change('b', '2026-11-26T12:00:01.000Z'));
    // Assess
    expect(received).toEqual(received.map(() => ['a', 'b']));
  });

  it('refuses a stream past its cap with TooManyStreamsError, and takes one again when a stream closes', () => {
    // Prepare
    const feed = new TransactionChangeFeed(3);
    const closes = [0, 1, 2].map(() => feed.subscribe(() => undefined));
    // Act
    const refused = (() => {
      try {
        feed.subscribe(() => undefined);
      } catch (error) {
        return error;
      }
    })();
    closes[0]!();
    feed.subscribe(() => undefined);
    // Assess
    expect(refused).toBeInstanceOf(TooManyStreamsError);
    expect((refused as TooManyStreamsError).code).toBe('TOO_MANY_STREAMS');
    expect(feed.streams).toBe(3);
  });

  it('replays to a reconnecting stream the kept changes since its last event', () => {
    // Prepare
    const feed = new TransactionChangeFeed();
    feed.publish(change('a', '2026-11-26T12:00:00.000Z'));
    feed.publish(change('b', '2026-11-26T12:00:01.000Z'));
    // Act
    const missed = feed.changesSince('2026-11-26T12:00:01.000Z');
    // Assess
    expect(missed.map((c) => c.reference)).toEqual(['b']);
  });
});
