import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { MemoryStatementStore } from '../../../shared/adapters/memory/statement-store';
import type { RelayLogger, RelayMetrics } from '../../../shared/app/ports';
import { readPullState, runPullCycle } from '../../../shared/app/provider-records/pull-cycle';
import { StatementLedger } from '../../../shared/app/statements/statement-sink';
import { parseConfig } from '../../../shared/config/load';
import { secretScrubber } from '../../../shared/config/secrets';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import { darajaPullRow } from '../../../shared/providers/daraja/pull-mapping';
import type { PullTransactionsApi, StatusApi } from '../../../shared/providers/types';

/*
 * The grace of the scheduled Daraja pull (docs/pull-and-balances.md), through the use cases on the
 * in-memory store: the real matcher (StatementLedger) behind the pull, the real callback path for the C2B
 * confirmation, and a Pull API that lists what "Safaricom" booked by time. Daraja lists a C2B payment
 * before its confirmation reaches the relay; a pull in that gap must not call it "no callback ever came".
 */

const SECRET = 'daraja-path-secret-0123456789';
const SAFARICOM_IP = '196.201.214.200';
const BOOKED = Date.parse('2026-11-23T10:00:00.000Z');
const DAY = { provider: 'daraja', account: 'ke', day: '2026-11-23' };
const GRACE_MS = 120_000;
const INTERVAL_MS = 900_000;
const silent: RelayLogger = { debug() {}, info() {}, warn() {}, error() {} };
const noMetrics: RelayMetrics = { count() {}, timing() {}, flush() {} } as unknown as RelayMetrics;

const config = parseConfig({
  management: { bearerToken: 'management-token-0123456789' },
  accounts: {
    daraja: { ke: { pathSecret: SECRET, shortCode: '600638', sourceIp: { allow: [`${SAFARICOM_IP}/32`] } } },
  },
});

/** "YYYYMMDDHHmmss" in East Africa Time, a confirmation's TransTime. */
const eat = (ms: number) => new Date(ms + 3 * 3600_000).toISOString().replace(/[-:T]/g, '').slice(0, 14);

function world() {
  let now = BOOKED;
  const clock = { now: () => new Date(now) };
  const store = new MemoryStore(clock);
  const statements = new MemoryStatementStore();
  const booked: { id: string; time: number; amount: string }[] = [];
  const windows: { from: string; to: string }[] = [];
  // Lists every booked row of the window, as the Pull API does, in one page.
  const pull: PullTransactionsApi = {
    maxLookBackSeconds: 48 * 3600,
    register: async () => ({ type: 'registered', code: '1000', detail: 'ok', alreadyRegistered: false }),
    query: async ({ from, to, offset }) => {
      if (offset === 0) windows.push({ from, to });
      const rows = booked
        .filter((b) => b.time >= Date.parse(from) && b.time <= Date.parse(to))
        .map((b) => ({
          transactionId: b.id,
          trxDate: new Date(b.time).toISOString(),
          msisdn: '254708374149',
          transactiontype: 'c2b-pay-bill-debit',
          billreference: 'ACC-001',
          amount: b.amount,
        }));
      return offset === 0 && rows.length ? { type: 'rows', rows } : { type: 'empty', detail: 'none' };
    },
    toStatementRow: (row, origin) => darajaPullRow(row, origin, 'KES'),
  };
  const scrub = secretScrubber(config);
  const base = { config, store, clock, log: silent, scrub };
  const services = {
    ...base,
    metrics: noMetrics,
    statusApi: () => ({ pull }) as unknown as StatusApi,
    statementSink: new StatementLedger({ ...base, statements }),
  };
  const body = (id: string, amount: string) =>
    JSON.stringify({
      ...JSON.parse(
        readFileSync(new URL('../../fixtures/daraja/c2b-confirmation.json', import.meta.url), 'utf8'),
      ),
      TransID: id,
      TransAmount: amount,
      TransTime: eat(BOOKED),
    });
  return {
    store,
    windows,
    at: (ms: number) => void (now = ms),
    book: (id: string, amount: string) => void booked.push({ id, time: now, amount }),
    pullNow: () => runPullCycle(services),
    confirm: (id: string, amount: string) =>
      receiveCallback(base, {
        requestId: `confirm-${id}`,
        method: 'POST',
        path: `/v1/daraja/ke/${SECRET}/c2b/confirmation`,
        headers: { 'content-type': 'application/json' },
        query: {},
        rawBody: Buffer.from(body(id, amount), 'utf8'),
        sourceIp: SAFARICOM_IP,
        receivedAt: new Date(now),
      }),
    breaks: async () => (await statements.listBreaks(DAY)).map((b) => b.category),
    effects: async () => (await statements.listRows(DAY)).map((r) => [r.providerId, r.effect]),
  };
}

describe('the pull grace', () => {
  // Fails without the grace: the first pull takes the row, opens the payment and stores the break.
  it('leaves no missing-in-relay break for a row pulled just before its confirmation arrives', async () => {
    // Prepare: booked, pulled a second later, confirmed three seconds after booking.
    const w = world();
    w.book('RKTQDM7W6S', '10');
    w.at(BOOKED + 1000);
    const [first] = await w.pullNow();
    w.at(BOOKED + 3000);
    expect((await w.confirm('RKTQDM7W6S', '10')).statusCode).toBe(200);
    // Act
    w.at(BOOKED + 1000 + INTERVAL_MS);
    const [next] = await w.pullNow();
    // Assess: the next pull reads the row and matches it to the confirmed payment.
    expect(await w.breaks()).toEqual([]);
    expect(await w.effects()).toEqual([['RKTQDM7W6S', 'matched']]);
    expect(first).toMatchObject({ outcome: 'pulled', rows: 0 });
    expect(next).toMatchObject({ outcome: 'pulled', rows: 1 });
  });

  // Fails without the grace: the break is stored by the first pull, a second after booking.
  it('still finds a payment whose confirmation never comes, one pull later', async () => {
    // Prepare
    const w = world();
    w.book('RKTQDM7W6T', '25');
    w.at(BOOKED + 1000);
    await w.pullNow();
    expect(await w.breaks()).toEqual([]);
    // Act
    w.at(BOOKED + 1000 + INTERVAL_MS);
    const [next] = await w.pullNow();
    // Assess
    expect(next).toMatchObject({ outcome: 'pulled', rows: 1 });
    expect(await w.breaks()).toEqual(['missing-in-relay']);
  });

  // Fails without the grace: each window ends at the pull's own time.
  it('ends each window the grace before now, and starts the next one before that end', async () => {
    // Prepare
    const w = world();
    const first = BOOKED + 1000;
    w.at(first);
    await w.pullNow();
    // Act
    w.at(first + INTERVAL_MS);
    await w.pullNow();
    // Assess
    const [a, b] = w.windows;
    expect(Date.parse(a!.to)).toBe(first - GRACE_MS);
    expect(Date.parse(b!.to)).toBe(first + INTERVAL_MS - GRACE_MS);
    expect(Date.parse(b!.from)).toBeLessThan(Date.parse(a!.to));
    // The stored window is the one asked: the next pull's start is reckoned from its end.
    expect((await readPullState(w.store, 'daraja', 'ke')).lastGoodWindow).toMatchObject(b!);
  });

  it('refuses a grace as long as a look-back: the window would read nothing', () => {
    const withRecords = (providerRecords: Record<string, unknown>) => () =>
      parseConfig({ management: { bearerToken: 'management-token-0123456789' }, providerRecords });
    expect(withRecords({ pullGraceSeconds: 600, pullLookBackSeconds: 600 })).toThrow(/pullGraceSeconds/);
    expect(
      withRecords({ pullGraceSeconds: 300, accounts: { 'daraja/ke': { pullLookBackSeconds: 300 } } }),
    ).toThrow(/pullGraceSeconds/);
    expect(withRecords({ pullGraceSeconds: 0 })().providerRecords.pullGraceSeconds).toBe(0);
  });
});
