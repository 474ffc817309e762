/**
 * Airtel disbursement answers as an integration's Airtel mock serves them (global-121/121-platform,
 * services/mock-service/src/fsp-integration/airtel/airtel.mock.service.ts), through the enquiry's
 * classification, and the disbursement result codes of Airtel's error-code page through a signed callback.
 * The `TI` status as a client checked against a production integration reads it (lepresk/momo-api-node,
 * tests/airtel_transaction.test.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyAirtelEnquiry } from '../../../../shared/providers/airtel/status-mapping';
import { callbackInput, onlyDraft, settings, signCallback, verifyThenParse } from './support';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../../fixtures/airtel/integrators/${name}`, import.meta.url), 'utf8'));

const enquiry = (json: unknown) =>
  classifyAirtelEnquiry({
    accountId: 'zm',
    kind: 'disbursement',
    reference: 'wxBOCniOBPLNfBnUPCLIDW0i4m48AXmTWAyB4gN8',
    httpStatus: 200,
    json,
    garbage: false,
  });

describe('Airtel disbursement answers from integrations', () => {
  it('settles a TS answer with DP00900001001 as a success with its airtel_money_id', () => {
    expect(enquiry(fixture('disbursement-answer-ts.json'))).toMatchObject({
      type: 'report',
      providerCode: 'TS:DP00900001001',
      draft: {
        status: 'SUCCEEDED',
        reason: undefined,
        providerTransactionId: 'disbursement-Y79CTORHGI-wxBOCniOBPLNfBnUPCLIDW0i4m48AXmTWAyB4gN8',
        attributes: { airtelStatusCode: 'TS', airtelResultCode: 'DP00900001001' },
      },
    });
  });

  it('never settles an HTTP 200 refusal without data.transaction (DP00900001004 in the envelope)', () => {
    expect(enquiry(fixture('disbursement-answer-invalid-amount.json'))).toMatchObject({ type: 'error' });
  });

  it('gives a signed TF disbursement callback its reason from the DP009 code it carries', () => {
    // Prepare: the message names no cause the phrases know; the code does.
    const transaction = {
      id: 'payout-1',
      message: 'Transaction failed',
      status_code: 'TF',
      response_code: 'DP00900001007',
    };
    const signed = signCallback('stringify-without-hash', transaction);

    // Act
    const { verification, parsed } = verifyThenParse(callbackInput(signed.raw, signed.headers, settings()));

    // Assess
    expect(verification.authenticated).toBe(true);
    expect(onlyDraft(parsed)).toMatchObject({
      status: 'FAILED',
      reason: { code: 'INSUFFICIENT_FUNDS', providerCode: 'DP00900001007' },
    });
  });

  it.each(fixture('failure-messages.json') as { message: string; reason: string }[])(
    'gives a signed TF callback saying $message the reason $reason',
    ({ message, reason }) => {
      // Prepare: Airtel's own description of a result code, as the callback's message, without the code.
      const signed = signCallback('stringify-without-hash', { id: 'pay-1', message, status_code: 'TF' });

      // Act
      const { parsed } = verifyThenParse(callbackInput(signed.raw, signed.headers, settings()));

      // Assess
      expect(onlyDraft(parsed)).toMatchObject({ status: 'FAILED', reason: { code: reason, message } });
    },
  );
});

describe('Airtel "TI" (transaction initiated) from a production integration', () => {
  it('reads an enquiry answering TI as still in progress, like TIP', () => {
    expect(enquiry(fixture('enquiry-answer-ti.json'))).toMatchObject({
      type: 'pending',
      providerCode: 'TI',
      detail: expect.stringContaining('(in progress)'),
    });
  });

  it('leaves a transaction PENDING on a signed TI callback: no doubt raised, no reason', () => {
    // Prepare: the transaction the answer names, as its callback would carry it.
    const answer = fixture('enquiry-answer-ti.json') as { data: { transaction: { id: string } } };
    const signed = signCallback('stringify-without-hash', {
      id: answer.data.transaction.id,
      message: 'Transaction initiated',
      status_code: 'TI',
      airtel_money_id: '',
    });

    // Act
    const { verification, parsed } = verifyThenParse(callbackInput(signed.raw, signed.headers, settings()));

    // Assess: not AMBIGUOUS (which would publish TransactionAmbiguous for a payment merely under way).
    expect(verification.authenticated).toBe(true);
    expect(onlyDraft(parsed)).toMatchObject({
      status: 'PENDING',
      reason: undefined,
      providerTransactionId: undefined,
      attributes: { airtelStatusCode: 'TI' },
    });
  });
});
