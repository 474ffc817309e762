import { describe, expect, it } from 'vitest';
import { verifyAirtelHash } from '../../../../shared/providers/airtel/hash';
import { AIRTEL_HASH_RECIPES } from '../../../../shared/providers/airtel/schema';
import {
  buildAirtelCallback,
  AIRTEL_HASH_RECIPES as SIMULATOR_RECIPES,
} from '../../../../simulator/airtel/hash';
import { KEY, settings } from './support';

/** The simulator signs with the same recipe ids; what it sends must verify here, and only here. */
const transaction = { id: 'AT-1', message: 'Paid', status_code: 'TS', airtel_money_id: 'MP1' };

function verify(
  built: { body: string; headers: Record<string, string> },
  recipes = [...AIRTEL_HASH_RECIPES],
) {
  const headers = Object.fromEntries(Object.entries(built.headers).map(([k, v]) => [k.toLowerCase(), v]));
  return verifyAirtelHash(
    { rawBody: Buffer.from(built.body, 'utf8'), body: JSON.parse(built.body), headers },
    settings({ hashRecipes: recipes }),
  );
}

describe('Airtel hash recipes shared with the simulator', () => {
  it('uses the same recipe ids', () => {
    expect([...SIMULATOR_RECIPES]).toEqual([...AIRTEL_HASH_RECIPES]);
  });

  it.each(AIRTEL_HASH_RECIPES)(
    'verifies what the simulator signs with %s, under that recipe alone',
    (recipe) => {
      expect(verify(buildAirtelCallback(transaction, { key: KEY, recipe }), [recipe])).toMatchObject({
        hash: 'matched',
        recipe,
      });
    },
  );

  it.each(AIRTEL_HASH_RECIPES)('rejects what the simulator corrupts with %s', (recipe) => {
    expect(verify(buildAirtelCallback(transaction, { key: KEY, recipe, corrupt: true })).hash).toBe(
      'mismatch',
    );
  });
});
