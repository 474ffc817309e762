import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeMomoCallback } from '../../../../shared/providers/momo/normalize';
import { momoCallbackSchema } from '../../../../shared/providers/momo/schema';
import { phoneFieldsOf } from '../../../../shared/providers/registry';
import { maskPhoneFieldsInText } from '../../../../shared/util/mask';

/*
 * A Remittance cash transfer's callback, in the shape the Rust client momo.rs models it
 * (Bourse-numerique-d-afrique/momo.rs, src/callback/mod.rs, `CashTransferSucceeded`: the request echoed
 * with `status`, `financialTransactionId` and a `reason` string, empty on success), values our own
 * (test/fixtures/momo/cashtransfer-successful.json). The relay's simulator echoes the same members
 * (simulator/momo/README.md). It names the sender's number in `payerMsisdn`, beside the payee's `partyId`.
 */
const raw = readFileSync(
  join(import.meta.dirname, '../../../fixtures/momo/cashtransfer-successful.json'),
  'utf8',
);
const REF = '0f7a4a52-2c1e-4d8b-9a63-5e2b1c7d9f10';
const SENDER = '256772123456';

describe('a MoMo cash transfer callback as momo.rs models it', () => {
  it('is a success for the payee, its empty reason no failure reason', () => {
    // Act
    const draft = normalizeMomoCallback(
      'demo',
      'cashtransfer',
      REF,
      momoCallbackSchema.parse(JSON.parse(raw)),
    );
    // Assess
    expect(draft).toMatchObject({
      status: 'SUCCEEDED',
      reason: undefined,
      providerTransactionId: '99887766',
      externalId: 'remit-5521',
      amount: { value: '100', currency: 'EUR' },
      party: { idType: 'MSISDN', id: '46733123499' },
    });
  });

  it("shows the sender's payerMsisdn masked in a receipt's body, as the payee's number", () => {
    // Act: what the receipt read (console/receipt-body.ts) shows of the stored body
    const shown = JSON.parse(maskPhoneFieldsInText(raw, phoneFieldsOf('momo')));
    // Assess
    expect(shown.payerMsisdn).toBe('2567*****456');
    expect(shown.payee.partyId).toBe('4673****499');
  });

  it('shows it masked in the quarantine too, which masks every provider’s number fields', () => {
    // Act: what the quarantine list (console/list-quarantine.ts) shows of a refused copy of the body
    const shown = maskPhoneFieldsInText(raw.replace('"SUCCESSFUL"', '42'), phoneFieldsOf(undefined));
    // Assess
    expect(shown).not.toContain(SENDER);
    expect(shown).toContain('"payerMsisdn":"2567*****456"');
  });
});
