import { describe, expect, it } from 'vitest';
import {
  type C2BRules,
  type C2BValidationInput,
  canonicalBillRef,
  decideC2BValidation,
  evaluateLocalRules,
  parsePartnerAnswer,
  visibleMsisdnPrefix,
} from '../../../../shared/providers/daraja/c2b-validation';
import { darajaC2bSettingsSchema } from '../../../../shared/providers/daraja/schema';

const input = (overrides: Partial<C2BValidationInput> = {}): C2BValidationInput => ({
  transId: 'RKTQDM7W6S',
  transAmount: '10',
  businessShortCode: '600638',
  billRefNumber: 'ACC-001',
  msisdn: '25470****149',
  firstName: 'John',
  lastName: 'Doe',
  ...overrides,
});

const rules = (overrides: Record<string, unknown> = {}, shortCode: string | null = '600638'): C2BRules => ({
  ...darajaC2bSettingsSchema.parse(overrides),
  shortCode: shortCode ?? undefined,
});

const never = () => new Promise<never>(() => {});

describe('C2B validation rules', () => {
  it.each([
    ['C2B00015', 'short-code', input({ businessShortCode: '174379' }), {}],
    ['C2B00011', 'msisdn-prefix', input({ msisdn: '25410****149' }), { msisdnPrefixes: ['2547'] }],
    ['C2B00013', 'amount', input({ transAmount: '0.5' }), { minAmount: 1 }],
    ['C2B00013', 'amount', input({ transAmount: '70001' }), { maxAmount: 70000 }],
    ['C2B00013', 'amount', input({ transAmount: 'ten' }), {}],
    [
      'C2B00012',
      'bill-ref-pattern',
      input({ billRefNumber: 'acc 1' }),
      { billRefPattern: '[A-Z]{3}-\\d{3}' },
    ],
    ['C2B00014', 'customer-name', input({ firstName: '', lastName: ' ' }), { requireCustomerName: true }],
  ])('rejects with %s (%s)', (code, rule, request, settings) => {
    // Act
    const decision = evaluateLocalRules(request, rules(settings));
    // Assess
    expect(decision).toMatchObject({ decision: 'reject', resultCode: code, rule });
  });

  it('passes a request that meets every configured rule', () => {
    const decision = evaluateLocalRules(
      input(),
      rules({
        msisdnPrefixes: ['2547'],
        minAmount: 1,
        maxAmount: 100,
        billRefPattern: '[A-Z]{3}-\\d{3}',
        requireCustomerName: true,
      }),
    );
    expect(decision).toBeUndefined();
  });

  it.each([['Buy Goods'], ['CustomerBuyGoodsOnline']])(
    'accepts a till payment (%s), which carries no account number, whatever the account number pattern',
    (transactionType) => {
      // Act
      const decision = evaluateLocalRules(
        input({ billRefNumber: '', transactionType }),
        rules({ billRefPattern: '[A-Z]{3}-\\d{3}' }),
      );
      // Assess
      expect(decision).toBeUndefined();
    },
  );

  it('still applies the account number pattern to a pay-bill payment with an empty BillRefNumber', () => {
    const decision = evaluateLocalRules(
      input({ billRefNumber: '', transactionType: 'Pay Bill' }),
      rules({ billRefPattern: '[A-Z]{3}-\\d{3}' }),
    );
    expect(decision).toMatchObject({ decision: 'reject', rule: 'bill-ref-pattern' });
  });

  it('matches the BillRefNumber pattern against the whole value, not a part of it', () => {
    expect(
      evaluateLocalRules(input({ billRefNumber: 'XACC-001X' }), rules({ billRefPattern: 'ACC-\\d{3}' })),
    ).toMatchObject({
      resultCode: 'C2B00012',
    });
  });

  it('skips the short-code rule for an account without a configured short code', () => {
    expect(evaluateLocalRules(input({ businessShortCode: '174379' }), rules({}, null))).toBeUndefined();
  });

  it('checks the first rule first: a wrong short code wins over a bad amount', () => {
    expect(evaluateLocalRules(input({ businessShortCode: '1', transAmount: '0' }), rules())).toMatchObject({
      resultCode: 'C2B00015',
    });
  });

  it('checks only the visible prefix of a masked MSISDN', () => {
    expect(visibleMsisdnPrefix('25470****149')).toBe('25470');
    expect(
      evaluateLocalRules(input({ msisdn: '25470****149' }), rules({ msisdnPrefixes: ['254708'] })),
    ).toBeUndefined();
    expect(
      evaluateLocalRules(input({ msisdn: '254708374149' }), rules({ msisdnPrefixes: ['254711'] })),
    ).toMatchObject({
      resultCode: 'C2B00011',
    });
  });

  it('passes the MSISDN prefix rule for an MSISDN Daraja sends hashed, whose digits it cannot read', () => {
    // Prepare: the SHA-256 hex Daraja put in a production C2B confirmation (Byte-Barn/mpesakit issue #103);
    // one starting with digits, one with a letter.
    const hashes = [
      '94c392c311d522da950619227b3361752a42042db7e1e699b26e628305c68a88',
      'D4C392C311D522DA950619227B3361752A42042DB7E1E699B26E628305C68A88',
    ];
    // Act
    const decisions = hashes.map((msisdn) =>
      evaluateLocalRules(input({ msisdn }), rules({ msisdnPrefixes: ['2547', '2541'] })),
    );
    // Assess
    expect(decisions).toEqual([undefined, undefined]);
  });

  it('still refuses a number, or a short hex run, outside the allowed prefixes', () => {
    // Act
    const number = evaluateLocalRules(input({ msisdn: '255712345678' }), rules({ msisdnPrefixes: ['2547'] }));
    const shortHex = evaluateLocalRules(
      input({ msisdn: '94c392c311d5' }),
      rules({ msisdnPrefixes: ['2547'] }),
    );
    // Assess
    expect(number).toMatchObject({ resultCode: 'C2B00011', rule: 'msisdn-prefix' });
    expect(shortHex).toMatchObject({ resultCode: 'C2B00011', rule: 'msisdn-prefix' });
  });

  it('canonicalizes account numbers for lookups (trimmed, upper case)', () => {
    expect(canonicalBillRef('  acc-001 ')).toBe('ACC-001');
  });
});

describe('partner endpoint answers', () => {
  it.each([
    [{ accept: true }, 'accept', '0'],
    [{ accept: false, resultCode: 'C2B00012' }, 'reject', 'C2B00012'],
    [{ accept: false }, 'reject', 'C2B00016'],
    [{ accept: false, resultCode: 'NOPE' }, 'reject', 'C2B00016'],
    [{ ResultCode: '0', ResultDesc: 'Accepted' }, 'accept', '0'],
    [{ ResultCode: 'C2B00013', ResultDesc: 'Rejected' }, 'reject', 'C2B00013'],
  ])('reads %j as %s %s', (body, decision, resultCode) => {
    expect(parsePartnerAnswer(body)).toMatchObject({ decision, resultCode, rule: 'partner-endpoint' });
  });

  it.each([[null], [[]], ['yes'], [{ accepted: true }]])('refuses %j as an answer', (body) => {
    expect(parsePartnerAnswer(body)).toHaveProperty('error');
  });
});

describe('deciding within the deadline', () => {
  it('rejects an unknown account number with C2B00012 from the known-accounts lookup', async () => {
    const outcome = await decideC2BValidation(
      input(),
      rules({ knownAccounts: true }),
      { knownAccount: async () => false },
      { budgetMs: 1000 },
    );
    expect(outcome).toMatchObject({ resultCode: 'C2B00012', rule: 'known-account', deadlineApplied: false });
  });

  it('never looks up a till payment’s empty account number: it has none', async () => {
    const outcome = await decideC2BValidation(
      input({ billRefNumber: '', transactionType: 'Buy Goods' }),
      rules({ knownAccounts: true }),
      { knownAccount: async () => false },
      { budgetMs: 1000 },
    );
    expect(outcome).toMatchObject({ decision: 'accept' });
  });

  it('looks the account number up in canonical form', async () => {
    const asked: string[] = [];
    await decideC2BValidation(
      input({ billRefNumber: ' acc-001' }),
      rules(),
      {
        knownAccount: async (billRef) => {
          asked.push(billRef);
          return true;
        },
      },
      { budgetMs: 1000 },
    );
    expect(asked).toEqual(['ACC-001']);
  });

  it('asks the partner only after the known-account lookup passed', async () => {
    const outcome = await decideC2BValidation(
      input(),
      rules(),
      {
        knownAccount: async () => true,
        partner: async () => ({
          decision: 'reject',
          resultCode: 'C2B00014',
          rule: 'partner-endpoint',
          detail: 'kyc',
        }),
      },
      { budgetMs: 1000 },
    );
    expect(outcome).toMatchObject({ resultCode: 'C2B00014', rule: 'partner-endpoint' });
  });

  it('never asks the slow sources when a local rule already rejects', async () => {
    let asked = false;
    const outcome = await decideC2BValidation(
      input({ businessShortCode: '1' }),
      rules(),
      {
        partner: async () => {
          asked = true;
          return { decision: 'accept', resultCode: '0', rule: 'partner-endpoint', detail: '' };
        },
      },
      { budgetMs: 1000 },
    );
    expect(outcome.resultCode).toBe('C2B00015');
    expect(asked).toBe(false);
  });

  it('answers with the default accept and records deadlineApplied when the source never answers', async () => {
    // Prepare
    let signal: AbortSignal | undefined;
    // Act
    const outcome = await decideC2BValidation(
      input(),
      rules({ defaultDecision: 'accept' }),
      {
        partner: (s) => {
          signal = s;
          return never();
        },
      },
      { budgetMs: 30 },
    );
    // Assess
    expect(outcome).toMatchObject({
      decision: 'accept',
      resultCode: '0',
      rule: 'default',
      deadlineApplied: true,
      defaultApplied: true,
    });
    expect(signal?.aborted).toBe(true);
  });

  it('answers with the configured default reject code when the source is late', async () => {
    const outcome = await decideC2BValidation(
      input(),
      rules({ defaultDecision: 'reject', defaultRejectCode: 'C2B00012' }),
      { knownAccount: () => never() },
      { budgetMs: 20 },
    );
    expect(outcome).toMatchObject({ decision: 'reject', resultCode: 'C2B00012', deadlineApplied: true });
  });

  it('applies the default, without the deadline flag, when a source fails', async () => {
    const outcome = await decideC2BValidation(
      input(),
      rules({ defaultDecision: 'reject' }),
      {
        partner: async () => {
          throw new Error('partner endpoint answered HTTP 500');
        },
      },
      { budgetMs: 1000 },
    );
    expect(outcome).toMatchObject({
      decision: 'reject',
      resultCode: 'C2B00016',
      rule: 'default',
      deadlineApplied: false,
      defaultApplied: true,
      sourceError: 'partner endpoint answered HTTP 500',
    });
  });

  it('absorbs a decision source that fails after the deadline (no unhandled rejection)', async () => {
    // Prepare
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    let rejected!: () => void;
    const lateRejection = new Promise<void>((resolve) => (rejected = resolve));
    // Act
    const outcome = await decideC2BValidation(
      input(),
      rules(),
      {
        partner: (signal) =>
          new Promise((_, reject) =>
            signal.addEventListener('abort', () =>
              setTimeout(() => {
                reject(new Error('late'));
                rejected();
              }, 5),
            ),
          ),
      },
      { budgetMs: 10 },
    );
    // The late rejection has happened; Node reports an unhandled one before the next turn of the loop.
    await lateRejection;
    await new Promise((r) => setImmediate(r));
    process.off('unhandledRejection', onUnhandled);
    // Assess
    expect(outcome.deadlineApplied).toBe(true);
    expect(unhandled).toEqual([]);
  });

  it('reports the elapsed time from the injected clock', async () => {
    let t = 1000;
    const outcome = await decideC2BValidation(
      input(),
      rules(),
      {
        knownAccount: async () => {
          t += 42;
          return true;
        },
      },
      { budgetMs: 1000, now: () => t },
    );
    expect(outcome.elapsedMs).toBe(42);
  });
});
