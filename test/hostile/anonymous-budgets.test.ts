/**
 * Floods an anonymous sender can afford, black-box over HTTP to the real local relay on DynamoDB Local
 * (issue 27): forged claims against a settled payment make one conflict, not one each; made-up
 * reference-less hints never cost MTN's genuine early callback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventsOfReference,
  eventType,
  momoOpenClient,
  momoSuccessBody,
  startHostileRelay,
  uuid,
} from '../helpers/hostile';
import type { TestRelay } from '../helpers/relay';

let relay: TestRelay;
/** Unmatched hints the relay takes a day here (1,000 in production: HINTS_PER_ACCOUNT_PER_DAY). */
const HINTS_BUDGET = 20;

beforeAll(async () => {
  // The floods test the anonymous budgets, not the ack deadline: with MoMo's default budget a loaded
  // machine (the whole suite beside a browser test) answered some forged hints 503 after a slow store.
  relay = await startHostileRelay(
    { ackBudgets: { momo: { storeMs: 20_000, ackMs: 25_000 } } },
    { limits: { hintsPerAccountPerDay: HINTS_BUDGET } },
  );
});

afterAll(async () => {
  await relay?.stop();
});

const { call, register, view } = momoOpenClient(
  {
    get url() {
      return relay.url;
    },
  },
  expect,
);

describe('a flood of forged claims against a settled payment (issue 27)', () => {
  it('publishes one TransactionConflict for 25 distinct forged FAILED callbacks and counts the other 24 on it', async () => {
    // Prepare: a payment settled SUCCEEDED by a person who checked with MTN.
    const reference = uuid();
    await register(reference);
    await call('PUT', `/v1/momo/open/requesttopay/${reference}`, momoSuccessBody());
    const resolved = await call(
      'POST',
      `/v1/transactions/momo/open/${reference}/resolve`,
      { status: 'SUCCEEDED', note: 'MTN support confirms the payment' },
      true,
    );
    expect(resolved.status, resolved.text).toBe(200);
    await relay.flush();
    // Act: 25 distinct FAILED bodies from anyone who can reach the URL.
    const answers: number[] = [];
    for (let i = 0; i < 25; i++) {
      const body = momoSuccessBody({
        status: 'FAILED',
        reason: 'INTERNAL_PROCESSING_ERROR',
        payerMessage: `x${i}`,
      });
      answers.push((await call('PUT', `/v1/momo/open/requesttopay/${reference}`, body)).status);
    }
    const events = eventsOfReference(await relay.flush(), reference);
    const story = await view(reference);
    // Assess
    expect(answers.every((s) => s === 200)).toBe(true);
    expect(events.filter((e) => eventType(e) === 'TransactionConflict')).toHaveLength(1);
    expect(story.transaction.status).toBe('SUCCEEDED');
    const conflicts = story.history.filter((h: any) => h.type === 'conflict');
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0].repeats).toBe(24);
    const eventIds = story.history.filter((h: any) => h.type === 'event').map((h: any) => h.eventId);
    expect(new Set(eventIds).size).toBe(eventIds.length);
  });
});

describe('a flood of made-up hints, then MTN’s genuine early callback (issue 27)', () => {
  it('answers and keeps the genuine callback after forged hints spent the day’s budget: its registration adopts it', async () => {
    // Prepare: more reference-less hints with made-up externalIds than the day's budget (no secret
    // needed on momo/open). The relay's budget is lowered (HINTS_BUDGET), so a few dozen spend it
    // instead of the production 1,000: the same path past the budget, a thousand fewer requests.
    const forged: number[] = [];
    for (let batch = 0; batch * 10 < HINTS_BUDGET + 5; batch++)
      forged.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, async (_, i) => {
            const body = {
              externalId: `made-up-${batch}-${i}`,
              status: 'SUCCESSFUL',
              amount: '1',
              currency: 'EUR',
            };
            return (await call('POST', '/v1/momo/open/requesttopay', body)).status;
          }),
        )),
      );
    // Act: MTN calls back before the partner registered the payment (the mtn-momo client made up its id).
    const externalId = `order-${uuid()}`;
    const genuine = await call(
      'POST',
      '/v1/momo/open/requesttopay',
      momoSuccessBody({ externalId, payerMessage: 'genuine' }),
    );
    const reference = uuid();
    await register(reference, externalId);
    const story = await view(reference);
    // Assess: every request answered 200; the genuine hint was kept and adopted by the registration.
    expect(forged.length).toBeGreaterThan(HINTS_BUDGET);
    expect(forged.filter((s) => s !== 200)).toEqual([]);
    expect(genuine.status, genuine.text).toBe(200);
    expect(JSON.stringify(story.transaction.evidence ?? story.evidence)).toContain('SUCCEEDED');
    // ... and it came past the budget: its receipt kept without its body (the path a thousand hints took).
    const [adopted] = story.evidence.filter((e: any) => e.source === 'callback');
    const hintKey = { provider: 'momo', account: 'open', reference: `externalId:${externalId}` };
    const receipt = await relay.store.getReceipt(hintKey, adopted.receiptId);
    expect(receipt).toMatchObject({ bodyDropped: true });
  });
});
