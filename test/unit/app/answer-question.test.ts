/**
 * The decision use case, called directly (issue 32 item 5): a provider's question answered within its
 * deadline, the first decision kept, storage given only what is left of the deadline. The question and
 * its handler are the test's own (the use case names no provider); Daraja's C2B validation through the
 * callback path is in accept-callback.test.ts and receive-callback.test.ts.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { answerQuestion, decisionBudgetMs } from '../../../shared/app/decisions/answer-question';
import type { ReceiptDraft } from '../../../shared/app/callbacks/receipts';
import { InvalidReferenceError } from '../../../shared/domain/errors';
import type { DeadlineQuestion, DecisionHandler } from '../../../shared/providers/types';
import * as z from '../../../shared/util/zod';
import { callbackWorld } from '../../helpers/callback-world';
import { driveTimers, useDrivenTimers, watched } from '../../helpers/driven-timers';

const DEADLINE_MS = 300;
const KEY = { provider: 'test', account: 'a', reference: 'Q-1' };

/** Keeps each decision as a provider record (first writer wins in the store). */
const handler: { useCase: string; decisions: DecisionHandler } = {
  useCase: 'test-question',
  decisions: {
    label: 'test question',
    logFacts: (facts) => ({ decision: facts.decision }),
    factsSchema: z.looseObject({ decision: z.string(), resultCode: z.string(), decidedAt: z.string() }),
    record: (key, facts, receiptId, receivedAt) => ({
      provider: key.provider,
      account: key.account,
      namespace: 'test-decision',
      id: key.reference,
      data: { ...facts, receiptId: receiptId ?? null },
      createdAt: receivedAt,
    }),
  },
};

/** A question that decides `decision` at once and notes the budget it was given. */
function question(decision: 'accept' | 'reject', budgets: number[] = [], reference = KEY.reference) {
  const asked: DeadlineQuestion = {
    key: { ...KEY, reference },
    deadlineMs: DEADLINE_MS,
    logFields: {},
    decide: async (_tools, budgetMs) => {
      budgets.push(budgetMs);
      return { decision, resultCode: decision === 'accept' ? '0' : 'R1' };
    },
  };
  return asked;
}

const receipt = (body = '{"q":1}'): ReceiptDraft => ({
  routeName: 'question',
  method: 'POST',
  path: '/v1/test/a/question',
  headers: {},
  sourceIp: '198.51.100.7',
  body,
  rawBody: Buffer.from(body),
  receivedAt: '2026-11-21T10:00:00.000Z',
  verification: {},
});

const decisionOf = async (store: ReturnType<typeof callbackWorld>['store']) =>
  (await store.getRecord({ ...KEY, id: KEY.reference, namespace: 'test-decision' }))?.data;

describe('answerQuestion', () => {
  // Every question starts at 0 on a driven clock: its deadline is counted there, never on the machine's.
  useDrivenTimers();
  beforeEach(driveTimers);

  it('gives the decision the deadline less the time kept for the writes, and keeps it with its receipt', async () => {
    // Prepare
    const { store, services } = callbackWorld();
    const budgets: number[] = [];

    // Act
    const answer = await answerQuestion(services, handler, question('accept', budgets), receipt(), 0);

    // Assess
    expect(answer).toEqual({ resultCode: '0', repeated: false });
    expect(budgets).toEqual([decisionBudgetMs(DEADLINE_MS)]);
    expect(decisionBudgetMs(DEADLINE_MS)).toBeLessThan(DEADLINE_MS);
    const kept = await decisionOf(store);
    expect(kept).toMatchObject({ decision: 'accept', decidedAt: '2026-11-21T10:00:01.000Z' });
    expect(kept!.receiptId).toBe(store.receiptsOf(KEY)[0]!.receiptId);
  });

  it('answers a repeated question with the recorded decision, not a new one', async () => {
    // Prepare
    const { store, services } = callbackWorld();
    await answerQuestion(services, handler, question('accept'), receipt(), 0);

    // Act: the same reference asked again, and this time the rules would reject it.
    const again = await answerQuestion(services, handler, question('reject'), receipt('{"q":2}'), 0);

    // Assess
    expect(again).toEqual({ resultCode: '0', repeated: true });
    expect(await decisionOf(store)).toMatchObject({ decision: 'accept' });
  });

  it('answers the decision made in time by the deadline while storage hangs, and says it was not stored', async () => {
    // Prepare
    const { store, lines, services } = callbackWorld();
    store.failure = 'hang';

    // Act: the clock runs to the question's deadline.
    const answered = watched(answerQuestion(services, handler, question('reject'), receipt(), 0));
    await vi.advanceTimersByTimeAsync(DEADLINE_MS);

    // Assess
    expect(answered.settled()).toBe(true);
    expect(await answered.promise).toEqual({ resultCode: 'R1', repeated: false });
    expect(lines.some((l) => l.message === 'test question answered before it was stored')).toBe(true);
  });

  it('refuses a reference that cannot be a storage key before any write or decision', async () => {
    // Prepare
    const { store, services } = callbackWorld();
    const budgets: number[] = [];

    // Act
    const refused = answerQuestion(services, handler, question('accept', budgets, '..'), receipt(), 0);

    // Assess
    await expect(refused).rejects.toBeInstanceOf(InvalidReferenceError);
    expect(budgets).toEqual([]);
    expect(store.receipts.size).toBe(0);
  });
});
