import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isHashedMsisdn,
  MASKED_HASHED_MSISDN,
  maskMsisdn,
  maskMsisdnsIn,
  maskPhoneAttributes,
  maskPhoneFields,
  maskPartnerId,
  maskPhoneFieldsInText,
} from '../../../shared/util/mask';
import {
  callingCodeOf,
  looksLikeMsisdn,
  msisdnSearchHash,
  normalizeMsisdn,
} from '../../../shared/util/msisdn';
import { phoneFieldsOf } from '../../../shared/providers/registry';

/** An international number as providers carry it: a calling code and a subscriber number, 10–15 digits. */
const internationalNumber = fc
  .tuple(fc.constantFrom('254', '256', '255', '233', '260', '46', '27'), fc.stringMatching(/^[1-9]\d{7,10}$/))
  .map(([code, rest]) => code + rest)
  .filter((n) => n.length >= 10 && n.length <= 15);

/** The last 9 digits: what identifies a subscriber within a country. */
const tail9 = (digits: string) => digits.slice(-9);

/** Digits in groups of three from the right, as people write them: 254 708 374 149. */
const grouped = (digits: string, separator: string) => digits.replace(/\B(?=(\d{3})+$)/g, separator);

/** Every spelling people write a number in. */
const spellings = (n: string) => [n, `+${n}`, `00${n}`, `+${grouped(n, ' ')}`, grouped(n, '-')];

const DARAJA = phoneFieldsOf('daraja');
const MOMO = phoneFieldsOf('momo');

describe('one mask format', () => {
  it('keeps at most the first four and the last three digits and always hides at least four', () => {
    // Prepare
    const inputs = ['46733123459', '254708374149', '+254708374149', '0708374149', '752123904', '12345'];

    // Act
    const masked = inputs.map((n) => maskMsisdn(n));

    // Assess
    expect(masked).toEqual([
      '4673****459',
      '2547*****149',
      '2547*****149',
      '070****149',
      '75****904',
      '*****',
    ]);
  });

  it('keeps a number Daraja already masked as it is', () => {
    expect(maskMsisdn('25470****149')).toBe('25470****149');
  });

  it('never shows the last nine digits of a number, whatever its spelling (property)', () => {
    fc.assert(
      fc.property(internationalNumber, (n) => {
        for (const spelling of spellings(n)) {
          const views = [
            maskMsisdn(spelling)!,
            maskMsisdnsIn(`paid by ${spelling}.`),
            JSON.stringify(
              maskPhoneFields(
                { MSISDN: spelling, payer: { partyId: spelling } },
                new Set(['MSISDN', 'partyId']),
              ),
            ),
            maskPhoneFieldsInText(
              JSON.stringify({ Item: [{ Name: 'PhoneNumber', Value: Number(n) }] }),
              DARAJA,
            ),
            maskPhoneFieldsInText(`msisdn=${spelling}&amount=10`, DARAJA),
            JSON.stringify(
              maskPhoneAttributes({ ReceiverPartyPublicName: `${spelling} - Jane Doe` }, DARAJA),
            ),
            JSON.stringify(
              maskPhoneAttributes({ ReceiverPartyPublicName: `Jane Doe - ${spelling}` }, DARAJA),
            ),
            // In a phone field, any grouping at all (pairs too) is one number.
            JSON.stringify(maskPhoneFields({ MSISDN: n.replace(/\B(?=(\d{2})+$)/g, ' ') }, DARAJA)),
          ];
          for (const view of views) expect(view.replace(/\D/g, '')).not.toContain(tail9(n));
        }
      }),
    );
  });
});

describe('a hashed number (Daraja C2B since 2025)', () => {
  /** Daraja's MSISDN as the SHA-256 hex of the number: as revealing as the number itself. */
  const HASHED = createHash('sha256').update('254708374149').digest('hex');

  it('shows no hex digit of a hashed MSISDN, in a number field, a JSON body and an attribute', () => {
    // Act
    const masked = [
      maskMsisdn(HASHED),
      maskMsisdn(HASHED.toUpperCase()),
      JSON.stringify(maskPhoneFields({ MSISDN: HASHED, TransID: 'RKL51ZDR4F' }, DARAJA)),
      maskPhoneFieldsInText(JSON.stringify({ MSISDN: HASHED }), DARAJA),
      maskPhoneAttributes({ MSISDN: HASHED }, DARAJA).MSISDN,
    ];

    // Assess
    expect(masked[0]).toBe(MASKED_HASHED_MSISDN);
    expect(masked[1]).toBe(MASKED_HASHED_MSISDN);
    expect(masked[2]).toBe(`{"MSISDN":"${MASKED_HASHED_MSISDN}","TransID":"RKL51ZDR4F"}`);
    expect(masked[3]).toBe(`{"MSISDN":"${MASKED_HASHED_MSISDN}"}`);
    expect(masked[4]).toBe(MASKED_HASHED_MSISDN);
    // No piece of the hash, and not a phone number's mask (25470****149) either.
    expect(MASKED_HASHED_MSISDN).not.toMatch(/[0-9a-f]{5}|\*/i);
  });

  it('recognises exactly 64 hex digits as a hashed number, not a shorter hex id or a number', () => {
    // Assess
    expect(isHashedMsisdn(HASHED)).toBe(true);
    expect(isHashedMsisdn(HASHED.slice(1))).toBe(false);
    expect(isHashedMsisdn(`${HASHED}0`)).toBe(false);
    expect(isHashedMsisdn('254708374149')).toBe(false);
    expect(isHashedMsisdn(`g${HASHED.slice(1)}`)).toBe(false);
  });
});

describe('what is not a phone number', () => {
  it('leaves provider ids in a phone field alone: a ConversationID, a CheckoutRequestID, a short code', () => {
    // Prepare
    const ids = {
      ConversationID: 'AG_20191219_0000579752af5d7d75f652',
      CheckoutRequestID: 'ws_CO_191220191020363925',
      PartyA: '600310',
    };

    // Act
    const masked = maskPhoneFields(ids, DARAJA);

    // Assess
    expect(masked).toEqual(ids);
    expect(maskMsisdnsIn('accepted (ConversationID AG_20191219_0000579752af5d7d75f652)')).toBe(
      'accepted (ConversationID AG_20191219_0000579752af5d7d75f652)',
    );
  });

  it('does not mask ids outside the phone fields, such as a 9-digit MoMo financialTransactionId', () => {
    // Prepare
    const body = JSON.stringify({
      financialTransactionId: '363440463',
      payer: { partyIdType: 'MSISDN', partyId: '46733123459' },
    });

    // Act
    const masked = JSON.parse(maskPhoneFieldsInText(body, MOMO)) as Record<string, unknown>;

    // Assess
    expect(masked).toEqual({
      financialTransactionId: '363440463',
      payer: { partyIdType: 'MSISDN', partyId: '4673****459' },
    });
  });

  it('shows a body without a number byte for byte', () => {
    const body = '{ "financialTransactionId" : "363440463",\n  "status": "SUCCESSFUL" }';
    expect(maskPhoneFieldsInText(body, MOMO)).toBe(body);
  });

  it('keeps a "__proto__" member a member, not a prototype', () => {
    const masked = maskPhoneFields(JSON.parse('{"__proto__":{"MSISDN":"254708374149"}}'), DARAJA);
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype);
    expect(JSON.stringify(masked)).toBe('{"__proto__":{"MSISDN":"2547*****149"}}');
  });

  it('leaves dates and over-long digit runs in free text alone', () => {
    expect(maskMsisdnsIn('on 2026-11-28 10:00, id 1234567890123456')).toBe(
      'on 2026-11-28 10:00, id 1234567890123456',
    );
  });
});

describe('normalizing a number to its international form', () => {
  it.each([
    ['+254 708 374 149', '254'],
    ['254708374149', '254'],
    ['0708374149', '254'],
    ['0708-374-149', '254'],
    ['(0708) 374.149', '254'],
    ['00254708374149', '254'],
    ['708374149', '254'],
    ['+254708374149', undefined],
  ])('reads %s (calling code %s) as 254708374149', (spelling, code) => {
    expect(normalizeMsisdn(spelling, code)).toBe('254708374149');
  });

  it('expands a Ugandan national number with Uganda’s calling code', () => {
    expect(normalizeMsisdn('0752 123 904', callingCodeOf({ country: 'UG' }))).toBe('256752123904');
    expect(normalizeMsisdn('752123904', callingCodeOf({ currency: 'UGX' }))).toBe('256752123904');
  });

  it('has no international form for a national number without a calling code, or for text', () => {
    expect(normalizeMsisdn('0708374149')).toBeUndefined();
    expect(normalizeMsisdn('order-8841', '254')).toBeUndefined();
    expect(callingCodeOf({ currency: 'EUR' })).toBeUndefined();
    expect(looksLikeMsisdn('+254 708 374 149')).toBe(true);
    expect(looksLikeMsisdn('NLJ7RT61SV')).toBe(false);
  });

  it('hashes every spelling of a number alike, and another number or key differently', () => {
    const key = 'a-search-key-of-at-least-32-characters';
    const hashes = ['+254 708 374 149', '0708374149', '254708374149'].map((s) =>
      msisdnSearchHash(key, normalizeMsisdn(s, '254')!),
    );
    expect(new Set(hashes).size).toBe(1);
    expect(msisdnSearchHash(key, '254708374159')).not.toBe(hashes[0]);
    expect(msisdnSearchHash(`${key}!`, '254708374149')).not.toBe(hashes[0]);
    expect(hashes[0]).not.toContain('708374149');
  });
});

describe("a partner's externalId", () => {
  it.each([
    ['ORDER-123456789', 'ORDER-123456789'],
    ['123456789', '123456789'],
    ['INV-2024000123', 'INV-2024000123'],
    ['6f1c2a9e-4b7d-4e2a-9c3b-123456789012', '6f1c2a9e-4b7d-4e2a-9c3b-123456789012'],
    ['customer 254708374149', 'customer 2547*****149'],
    ['+254708374149', maskMsisdn('+254708374149')!],
  ])('%s is shown as %s: an id keeps its digits, free text and a +number do not', (id, shown) => {
    expect(maskPartnerId(id)).toBe(shown);
    if (id.startsWith('+') || id.includes(' ')) expect(maskPartnerId(id)).not.toContain('708374149');
  });
});
