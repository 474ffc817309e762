import * as mini from 'zod/mini';
import { describe, expect, it } from 'vitest';
import * as z from '../../../shared/util/zod';

/*
 * shared/util/zod.ts gives the relay zod/mini with one function of its own: `catch`, built through zod's
 * core API so that a bundle using it does not keep the whole of zod's util module. It must make the schema
 * zod/mini's `catch` makes.
 */

const inner = () => z.nullish(z.looseObject({ response_code: z.nullish(z.string()) }));

describe('the relay’s z.catch', () => {
  it('makes the schema zod/mini’s catch makes, with the same constant catch value', () => {
    // Act
    const ours = z.catch(inner(), undefined);
    const theirs = mini.catch(inner(), undefined);

    // Assess
    expect(ours).toBeInstanceOf(mini.ZodMiniCatch);
    expect(ours._zod.def.type).toBe('catch');
    expect(Object.keys(ours._zod.def).sort()).toEqual(Object.keys(theirs._zod.def).sort());
    // The constant is a thunk tagged as zod tags a constant catch value.
    expect({ ...ours._zod.def.catchValue }).toEqual({ ...theirs._zod.def.catchValue });
    expect(Object.keys(ours._zod.def.catchValue)).toEqual(['~constantCatch']);
  });

  it('parses as zod/mini’s catch: valid input kept, invalid input replaced by the catch value', () => {
    // Prepare
    const inputs = [
      { response_code: 'DP00800001001' },
      null,
      undefined,
      'not an object',
      { response_code: 7 },
    ];
    for (const [value, expected] of [
      [undefined, undefined],
      [{ response_code: 'none' }, { response_code: 'none' }],
    ] as const) {
      const ours = z.catch(inner(), value);
      const theirs = mini.catch(inner(), value);

      // Act
      const parsed = inputs.map((input) => ours.parse(input));

      // Assess
      expect(parsed).toEqual(inputs.map((input) => theirs.parse(input)));
      expect(parsed[3]).toEqual(expected);
    }
  });

  it('passes a function catch value through, as zod/mini’s catch does', () => {
    // Prepare
    const fallback = (ctx: { error: { issues: unknown[] } }) => ({
      response_code: `${ctx.error.issues.length}`,
    });

    // Act
    const ours = z.catch(inner(), fallback);

    // Assess
    expect(ours._zod.def.catchValue).toBe(fallback);
    expect(ours.parse('x')).toEqual(mini.catch(inner(), fallback).parse('x'));
  });
});
