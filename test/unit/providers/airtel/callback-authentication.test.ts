import { describe, expect, it } from 'vitest';
import { UnauthorizedError } from '../../../../shared/domain/errors';
import {
  AIRTEL_HASH_RECIPES,
  type AirtelHashMode,
  type AirtelHashRecipe,
} from '../../../../shared/providers/airtel/schema';
import {
  callbackInput,
  fixture,
  hmacB64,
  KEY,
  onlyDraft,
  parse,
  type SignedCallback,
  settings,
  signCallback,
  unsignedCallback,
  verify,
  verifyThenParse,
} from './support';

const paid = fixture('callback-ts').transaction;

type Case = 'good hash' | 'hash made with another key' | 'body tampered after hashing' | 'no hash';

const CASES: Record<Case, (recipe: AirtelHashRecipe) => SignedCallback> = {
  'good hash': (recipe) => signCallback(recipe, paid),
  'hash made with another key': (recipe) => signCallback(recipe, paid, 'someone-elses-key'),
  'body tampered after hashing': (recipe) => {
    const signed = signCallback(recipe, paid);
    return { ...signed, raw: signed.raw.replace('MP210603.1234.A00001"', 'MP210603.1234.A00009"') };
  },
  'no hash': (recipe) => unsignedCallback(recipe, paid),
};

type Expected =
  | { accepted: true; hash: string; recipe?: AirtelHashRecipe; warned: boolean; authenticated: boolean }
  | { accepted: false };

function expected(mode: AirtelHashMode, c: Case, recipe: AirtelHashRecipe): Expected {
  if (mode === 'off') return { accepted: true, hash: 'not-checked', warned: false, authenticated: false };
  if (c === 'good hash')
    return { accepted: true, hash: 'matched', recipe, warned: false, authenticated: true };
  if (mode === 'enforce') return { accepted: false };
  return {
    accepted: true,
    hash: c === 'no hash' ? 'missing' : 'mismatch',
    warned: true,
    authenticated: false,
  };
}

const MODES: AirtelHashMode[] = ['enforce', 'log-only', 'off'];
const table = MODES.flatMap((mode) =>
  AIRTEL_HASH_RECIPES.flatMap((recipe) =>
    (Object.keys(CASES) as Case[]).map((c) => ({ mode, recipe, c, want: expected(mode, c, recipe) })),
  ),
);

describe('Airtel callback authentication (every recipe × case × mode)', () => {
  it.each(table)('$mode / $recipe / $c', ({ mode, recipe, c, want }) => {
    // Prepare
    const callback = CASES[c](recipe);
    const input = callbackInput(callback.raw, callback.headers, settings({ hashMode: mode }));

    // Act
    const verification = verify(input);

    // Assess
    if (!want.accepted) {
      expect(verification.refusal).toBeInstanceOf(UnauthorizedError);
      expect(verification.authenticated).toBe(false);
      expect(() => verifyThenParse(input)).toThrow(UnauthorizedError);
      return;
    }
    expect(verification.refusal).toBeUndefined();
    expect(verification.facts).toMatchObject({ hash: want.hash, mode });
    if (want.recipe) expect(verification.facts.recipe).toBe(want.recipe);
    else expect(verification.facts.recipe).toBeUndefined();
    expect(verification.authenticated).toBe(want.authenticated);
    expect(verification.warning !== undefined).toBe(want.warned);
    // An accepted callback always parses into its one report.
    expect(onlyDraft(verifyThenParse(input).parsed).key.reference).toBe('AT-ORDER-1001');
  });
});

describe('Airtel callback authentication details', () => {
  it('refuses a callback signed with a recipe that the account has not enabled', () => {
    // Prepare: an extra member makes stringify-without-hash and stringify-transaction sign different text.
    const unsigned = { transaction: paid, status: { code: '200' } };
    const raw = JSON.stringify({ ...unsigned, hash: hmacB64(KEY, JSON.stringify(unsigned)) });

    // Act
    const enabled = verify(callbackInput(raw, {}, settings({ hashRecipes: ['stringify-without-hash'] })));
    const disabled = verify(
      callbackInput(raw, {}, settings({ hashRecipes: ['stringify-transaction', 'header-hex'] })),
    );

    // Assess
    expect(enabled).toMatchObject({
      authenticated: true,
      facts: { hash: 'matched', recipe: 'stringify-without-hash' },
    });
    expect(disabled.refusal).toBeInstanceOf(UnauthorizedError);
    expect(disabled.refusal!.details).toEqual({ tried: ['stringify-transaction'] });
  });

  it('accepts a header signature only when header-hex is enabled', () => {
    // Prepare
    const callback = signCallback('header-hex', paid);

    // Act
    const enabled = verify(
      callbackInput(callback.raw, callback.headers, settings({ hashRecipes: ['header-hex'] })),
    );
    const disabled = verify(
      callbackInput(callback.raw, callback.headers, settings({ hashRecipes: ['raw-without-hash'] })),
    );

    // Assess
    expect(enabled.refusal).toBeUndefined();
    expect(enabled.authenticated).toBe(true);
    expect(disabled.refusal).toBeInstanceOf(UnauthorizedError);
  });

  it('records the recipe and where the hash came from in the receipt facts', () => {
    // Prepare
    const callback = signCallback('header-hex', paid);

    // Act
    const { facts } = verify(callbackInput(callback.raw, callback.headers, settings()));

    // Assess
    expect(facts).toEqual({
      hash: 'matched',
      mode: 'enforce',
      recipe: 'header-hex',
      source: 'header:x-airtel-signature',
    });
  });

  it.each([
    ['a truncated hash', 'c2lnbmF0dXJl'],
    ['a hash of the wrong length', Buffer.alloc(33, 1).toString('base64')],
    ['a hash that is not base64', `${'!'.repeat(43)}=`],
    ['an empty hash', ''],
    ['a numeric hash', 12345],
    ['an object as hash', { value: 'x' }],
  ])('refuses %s with 401 in enforce mode, without crashing', (_name, hash) => {
    // Prepare
    const raw = JSON.stringify({ transaction: paid, hash });

    // Act
    const verification = verify(callbackInput(raw, {}, settings()));

    // Assess
    expect(verification.refusal).toBeInstanceOf(UnauthorizedError);
  });

  it('records a malformed hash as a mismatch in log-only mode', () => {
    // Prepare
    const raw = JSON.stringify({ transaction: paid, hash: 'not-a-digest' });

    // Act
    const verification = verify(callbackInput(raw, {}, settings({ hashMode: 'log-only' })));

    // Assess
    expect(verification.refusal).toBeUndefined();
    expect(verification.facts).toMatchObject({ hash: 'mismatch', mode: 'log-only' });
    expect(verification.warning).toMatch(/log-only/);
  });

  it('refuses a callback carrying a hash when the account has no key, rather than trusting it', () => {
    // Prepare
    const callback = signCallback('stringify-without-hash', paid);

    // Act
    const verification = verify(callbackInput(callback.raw, {}, settings({ callbackKey: undefined })));

    // Assess
    expect(verification.refusal).toBeInstanceOf(UnauthorizedError);
    expect(verification.authenticated).toBe(false);
  });

  it('never puts the key or the hash value in the warning or the facts when accepting a mismatch in log-only mode', () => {
    // Prepare
    const callback = signCallback('stringify-without-hash', paid, 'someone-elses-key');

    // Act
    const verification = verify(callbackInput(callback.raw, {}, settings({ hashMode: 'log-only' })));

    // Assess
    expect(verification.warning).toBeDefined();
    const shown = JSON.stringify({ warning: verification.warning, facts: verification.facts });
    expect(shown).not.toContain(KEY);
    expect(shown).not.toContain(callback.signature!);
  });

  it('does not put the key or the hash value in the 401 refusal', () => {
    // Prepare
    const callback = signCallback('stringify-without-hash', paid, 'someone-elses-key');

    // Act
    const { refusal, facts } = verify(callbackInput(callback.raw, {}, settings()));

    // Assess
    const text = JSON.stringify({ message: refusal!.message, details: refusal!.details, facts });
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(callback.signature!);
  });

  it('checks the hash before the shape, so a forged malformed body is a 401 not a 400', () => {
    // Prepare
    const raw = JSON.stringify({ transaction: { status_code: 'TS' }, hash: 'x' });

    // Act
    const run = () => verifyThenParse(callbackInput(raw, {}, settings()));

    // Assess
    expect(run).toThrow(UnauthorizedError);
  });
});

describe('Airtel callbacks signed by stringify-transaction (only the transaction member is signed)', () => {
  it('trusts only {transaction} and lists the other top-level members as ignored', () => {
    // Prepare
    const callback = signCallback('stringify-transaction', paid, KEY, { status: { code: '200' }, note: 'x' });
    const input = callbackInput(callback.raw, {}, settings());

    // Act
    const verification = verify(input);

    // Assess
    expect(verification.facts).toMatchObject({ hash: 'matched', recipe: 'stringify-transaction' });
    expect(verification.authenticated).toBe(true);
    expect(verification.trustedBody).toEqual({ transaction: paid });
    expect(verification.facts.ignoredUnsigned).toEqual(['status', 'note']);
  });

  it('returns no trusted part and lists nothing when the recipe signs the whole body', () => {
    // Prepare
    const callback = signCallback('stringify-without-hash', paid);

    // Act
    const verification = verify(callbackInput(callback.raw, {}, settings()));

    // Assess
    expect(verification.trustedBody).toBeUndefined();
    expect(verification.facts.ignoredUnsigned).toBeUndefined();
  });

  it('keeps a signed TA callback AMBIGUOUS when an unsigned status.result_code says success', () => {
    // Prepare
    const transaction = { ...paid, status_code: 'TA', message: 'Transaction ambiguous' };
    const callback = signCallback('stringify-transaction', transaction, KEY, {
      status: { result_code: 'DP00800001001' },
    });
    const input = callbackInput(callback.raw, {}, settings());

    // Act
    const { verification, parsed } = verifyThenParse(input);

    // Assess
    expect(verification.facts.ignoredUnsigned).toEqual(['status']);
    const draft = onlyDraft(parsed);
    expect(draft.status).toBe('AMBIGUOUS');
    expect(draft.attributes).toEqual({ airtelStatusCode: 'TA' });
  });

  it('does not let an unsigned status.result_code turn an unknown signed status into a success', () => {
    // Prepare: on its own, "SUCCESS" + DP00800001001 would read as SUCCEEDED (see the untrusted parse).
    const transaction = { ...paid, status_code: 'SUCCESS', message: 'Request accepted' };
    const callback = signCallback('stringify-transaction', transaction, KEY, {
      status: { result_code: 'DP00800001001' },
    });
    const input = callbackInput(callback.raw, {}, settings());

    // Act
    const trusted = onlyDraft(verifyThenParse(input).parsed);
    const untrusted = onlyDraft(parse(input));

    // Assess
    expect(trusted.status).toBe('AMBIGUOUS');
    expect(trusted.attributes?.airtelResultCode).toBeUndefined();
    expect(untrusted.status).toBe('SUCCEEDED');
  });
});
