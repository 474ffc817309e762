/**
 * MoMo answers and callbacks as integrators recorded them (test/fixtures/momo/integrators, sources in the
 * MoMo README's "Shapes from integrations"), through the status GET's classification and the callback's
 * schema and normalizer.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normalizeMomoCallback } from '../../../../shared/providers/momo/normalize';
import { momoCallbackSchema } from '../../../../shared/providers/momo/schema';
import { classifyMomoStatus } from '../../../../shared/providers/momo/status-mapping';

const REF = '90fab171-a8f9-4713-8283-1eacfbd3dcda';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../../fixtures/momo/integrators/${name}`, import.meta.url), 'utf8'));

const statusAnswer = (json: unknown) =>
  classifyMomoStatus({
    accountId: 'demo',
    kind: 'requesttopay',
    reference: REF,
    httpStatus: 200,
    json,
    garbage: false,
  });

const callbackDraft = (json: unknown) =>
  normalizeMomoCallback('demo', 'requesttopay', REF, momoCallbackSchema.parse(json));

describe('MoMo payloads from integrations', () => {
  it('reads a blank financialTransactionId and externalId as absent, in a status answer and in a callback', () => {
    // Prepare: a sandbox SUCCESSFUL answer with both ids empty strings.
    const body = fixture('requesttopay-status-blank-ids.json');

    // Act
    const answer = statusAnswer(body);
    const draft = callbackDraft(body);

    // Assess: a success with no provider id, never one whose id is "" (events would carry it as an id).
    expect(answer).toMatchObject({ type: 'report', draft: { status: 'SUCCEEDED' } });
    for (const d of [answer.type === 'report' ? answer.draft : undefined, draft]) {
      expect(d?.providerTransactionId).toBeUndefined();
      expect(d?.externalId).toBeUndefined();
      expect(d?.amount).toEqual({ value: '55', currency: 'EUR' });
    }
  });

  it('fails LOW_BALANCE_OR_PAYEE_LIMIT_REACHED_OR_NOT_ALLOWED as insufficient funds (MTN Congo, Cameroon, Benin)', () => {
    // Act
    const answer = statusAnswer(fixture('requesttopay-failed-low-balance.json'));
    const draft = callbackDraft(fixture('requesttopay-failed-low-balance.json'));

    // Assess
    const reason = {
      code: 'INSUFFICIENT_FUNDS',
      providerCode: 'LOW_BALANCE_OR_PAYEE_LIMIT_REACHED_OR_NOT_ALLOWED',
    };
    expect(answer).toMatchObject({ type: 'report', draft: { status: 'FAILED', reason } });
    expect(draft).toMatchObject({ status: 'FAILED', reason });
  });
});
