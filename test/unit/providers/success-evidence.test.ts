import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsedWithoutSecrets } from '../../../shared/app/callbacks/secret-guard';
import { evidenceOf } from '../../../shared/domain/apply-report';
import type { NormalizedReport, ReportDraft } from '../../../shared/domain/transaction';
import { normalizeAirtelCallback } from '../../../shared/providers/airtel/normalize';
import { airtelCallbackSchema } from '../../../shared/providers/airtel/schema';
import {
  normalizeB2cResult,
  normalizeStatusResult,
  normalizeStk,
} from '../../../shared/providers/daraja/normalize';
import { resultSchema, stkCallbackSchema } from '../../../shared/providers/daraja/schema';
import { normalizeMomoCallback } from '../../../shared/providers/momo/normalize';
import { momoCallbackSchema } from '../../../shared/providers/momo/schema';

/*
 * Design "Normalized events": a final event's evidence carries "the provider's own code and words
 * (redacted)". A success's too, not only a failure's: Daraja's ResultCode 0 and its ResultDesc, MoMo's
 * status SUCCESSFUL, Airtel's TS and its message; scrubbed of configured secrets by the one secret guard
 * every callback's reports pass, as a failure's words are.
 */
const fixture = (provider: string, name: string): unknown =>
  JSON.parse(readFileSync(join(import.meta.dirname, '../../fixtures', provider, name), 'utf8'));

const SECRET = 'sk-live-0123456789abcdef';
const scrub = (text: string) => text.split(SECRET).join('[REDACTED]');

/** The evidence a callback's draft becomes, after the secret guard, as the ingest builds it. */
function evidenceFrom(draft: ReportDraft) {
  const parsed = parsedWithoutSecrets({ type: 'reports', reports: [{ draft }] }, scrub) as unknown as {
    reports: { draft: ReportDraft }[];
  };
  const report: NormalizedReport = {
    ...parsed.reports[0]!.draft,
    receivedAt: '2026-11-23T10:00:00.000Z',
    origin: 'callback',
    receiptId: 'receipt-1',
  };
  return evidenceOf(report, true);
}

describe("a success callback's evidence carries the provider's code and words", () => {
  it.each([
    {
      what: 'Daraja STK (ResultCode 0)',
      draft: () =>
        normalizeStk('demo', 'KES', stkCallbackSchema.parse(fixture('daraja', 'stk-success.json'))),
      providerCode: '0',
      description: 'The service request is processed successfully.',
    },
    {
      what: 'Daraja B2C result (ResultCode 0)',
      draft: () =>
        normalizeB2cResult(
          'demo',
          'KES',
          '10571-7910404-1',
          resultSchema.parse(fixture('daraja', 'b2c-result-success.json')).Result,
        ),
      providerCode: '0',
      description: 'The service request is processed successfully.',
    },
    {
      what: 'Daraja transaction status result (0, Completed)',
      draft: () =>
        normalizeStatusResult(
          'demo',
          'KES',
          '3213-416199-2',
          resultSchema.parse(fixture('daraja', 'status-result.json')).Result,
        ),
      providerCode: 'Completed',
      description: 'The service request is processed successfully.',
    },
    {
      what: 'MoMo (status SUCCESSFUL)',
      draft: () =>
        normalizeMomoCallback(
          'demo',
          'requesttopay',
          'ref-1',
          momoCallbackSchema.parse(fixture('momo', 'requesttopay-successful.json')),
        ),
      providerCode: 'SUCCESSFUL',
      description: null,
    },
    {
      what: 'Airtel (TS and its message)',
      draft: () =>
        normalizeAirtelCallback('demo', airtelCallbackSchema.parse(fixture('airtel', 'callback-ts.json'))),
      providerCode: 'TS',
      description: 'Paid UGX 5,000 to MERCHANT, Trans ID MP210603.1234.A00001',
    },
  ])('$what', ({ draft, providerCode, description }) => {
    // Act
    const evidence = evidenceFrom(draft());
    // Assess
    expect(evidence).toMatchObject({ claim: 'SUCCEEDED', providerCode, description });
  });

  it('scrubs a configured secret the provider echoes in its words, as for a failure', () => {
    // Prepare: a success whose ResultDesc echoes a configured secret.
    const body = fixture('daraja', 'stk-success.json') as { Body: { stkCallback: { ResultDesc: string } } };
    body.Body.stkCallback.ResultDesc = `Processed for initiator ${SECRET}`;
    // Act
    const evidence = evidenceFrom(normalizeStk('demo', 'KES', stkCallbackSchema.parse(body)));
    // Assess
    expect(evidence).toMatchObject({ providerCode: '0', description: 'Processed for initiator [REDACTED]' });
    expect(JSON.stringify(evidence)).not.toContain(SECRET);
  });
});
