import { describe, expect, it } from 'vitest';
import { UnauthorizedError } from '../../../../shared/domain/errors';
import { airtelProvider } from '../../../../shared/providers/airtel';
import {
  AIRTEL_HASH_RECIPES,
  type AirtelHashMode,
  type AirtelHashRecipe,
} from '../../../../shared/providers/airtel/schema';
import {
  fixture,
  hmacB64,
  KEY,
  routeContext,
  type SignedCallback,
  settings,
  signCallback,
  unsignedCallback,
} from './support';

const handle = airtelProvider.routes[0]!.handle;
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
  { accepted: true; hash: string; recipe?: AirtelHashRecipe; warned: boolean } | { accepted: false };

function expected(mode: AirtelHashMode, c: Case, recipe: AirtelHashRecipe): Expected {
  if (mode === 'off') return { accepted: true, hash: 'not-checked', warned: false };
  if (c === 'good hash') return { accepted: true, hash: 'matched', recipe, warned: false };
  if (mode === 'enforce') return { accepted: false };
  return { accepted: true, hash: c === 'no hash' ? 'missing' : 'mismatch', warned: true };
}

const MODES: AirtelHashMode[] = ['enforce', 'log-only', 'off'];
const table = MODES.flatMap((mode) =>
  AIRTEL_HASH_RECIPES.flatMap((recipe) =>
    (Object.keys(CASES) as Case[]).map((c) => ({ mode, recipe, c, want: expected(mode, c, recipe) })),
  ),
);

describe('Airtel callback authentication (every recipe × case × mode)', () => {
  it.each(table)('$mode / $recipe / $c', async ({ mode, recipe, c, want }) => {
    // Prepare
    const callback = CASES[c](recipe);
    const { ctx, ingested, logs } = routeContext(
      callback.raw,
      callback.headers,
      settings({ hashMode: mode }),
    );

    // Act
    const run = handle(ctx);

    // Assess
    if (!want.accepted) {
      await expect(run).rejects.toBeInstanceOf(UnauthorizedError);
      expect(ingested).toHaveLength(0);
      return;
    }
    const response = await run;
    expect(response.statusCode).toBe(200);
    expect(ingested).toHaveLength(1);
    const verification = ingested[0]!.verification;
    expect(verification).toMatchObject({ hash: want.hash, mode });
    if (want.recipe) expect(verification.recipe).toBe(want.recipe);
    else expect(verification.recipe).toBeUndefined();
    const warnings = logs.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(want.warned ? 1 : 0);
  });
});

describe('Airtel callback authentication details', () => {
  it('rejects a callback signed with a recipe that the account has not enabled', async () => {
    // An extra member makes stringify-without-hash and stringify-transaction sign different text.
    const unsigned = { transaction: paid, status: { code: '200' } };
    const raw = JSON.stringify({ ...unsigned, hash: hmacB64(KEY, JSON.stringify(unsigned)) });
    const enabled = routeContext(raw, {}, settings({ hashRecipes: ['stringify-without-hash'] }));
    const disabled = routeContext(
      raw,
      {},
      settings({ hashRecipes: ['stringify-transaction', 'header-hex'] }),
    );

    await expect(handle(enabled.ctx)).resolves.toMatchObject({ statusCode: 200 });
    await expect(handle(disabled.ctx)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('accepts a header signature only when header-hex is enabled', async () => {
    const callback = signCallback('header-hex', paid);
    const enabled = routeContext(callback.raw, callback.headers, settings({ hashRecipes: ['header-hex'] }));
    const disabled = routeContext(
      callback.raw,
      callback.headers,
      settings({ hashRecipes: ['raw-without-hash'] }),
    );

    await expect(handle(enabled.ctx)).resolves.toMatchObject({ statusCode: 200 });
    await expect(handle(disabled.ctx)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('records the recipe and where the hash came from on the receipt', async () => {
    const callback = signCallback('header-hex', paid);
    const { ctx, ingested } = routeContext(callback.raw, callback.headers, settings());

    await handle(ctx);

    expect(ingested[0]!.verification).toEqual({
      pathSecret: 'not-configured',
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
  ])('answers %s with 401 in enforce mode, without crashing', async (_name, hash) => {
    const raw = JSON.stringify({ transaction: paid, hash });
    const { ctx } = routeContext(raw, {}, settings());

    await expect(handle(ctx)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('records a malformed hash as a mismatch in log-only mode', async () => {
    const raw = JSON.stringify({ transaction: paid, hash: 'not-a-digest' });
    const { ctx, ingested } = routeContext(raw, {}, settings({ hashMode: 'log-only' }));

    await handle(ctx);

    expect(ingested[0]!.verification).toMatchObject({ hash: 'mismatch', mode: 'log-only' });
  });

  it('never logs the key or the hash value when accepting a mismatch in log-only mode', async () => {
    const callback = signCallback('stringify-without-hash', paid, 'someone-elses-key');
    const { ctx, logs } = routeContext(callback.raw, {}, settings({ hashMode: 'log-only' }));

    await handle(ctx);

    const logged = JSON.stringify(logs);
    expect(logs.some((l) => l.level === 'warn')).toBe(true);
    expect(logged).not.toContain(KEY);
    expect(logged).not.toContain(callback.signature!);
  });

  it('does not put the key or the hash value in the 401 answer', async () => {
    const callback = signCallback('stringify-without-hash', paid, 'someone-elses-key');
    const { ctx } = routeContext(callback.raw, {}, settings());

    const error = await handle(ctx).catch((e: unknown) => e as UnauthorizedError);

    const text = JSON.stringify({
      message: (error as UnauthorizedError).message,
      details: (error as UnauthorizedError).details,
    });
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(callback.signature!);
  });

  it('checks the hash before the shape, so a forged malformed body is a 401 not a 400', async () => {
    const raw = JSON.stringify({ transaction: { status_code: 'TS' }, hash: 'x' });
    const { ctx } = routeContext(raw, {}, settings());

    await expect(handle(ctx)).rejects.toBeInstanceOf(UnauthorizedError);
  });
});
