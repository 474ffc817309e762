import * as mini from 'zod/mini';
import { describe, expect, it } from 'vitest';
import * as z from '../../../shared/util/zod';

/*
 * shared/util/zod.ts gives the relay zod/mini with two functions of its own, `catch` and `iso.datetime`,
 * built through zod's core API so that a bundle using them does not keep the whole of zod's util and iso
 * modules. They must make the schemas zod/mini's make.
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

describe('the relay’s z.iso.datetime', () => {
  it('makes the schema zod/mini’s iso.datetime makes, and parses as it does', () => {
    // Prepare
    const inputs = [
      '2026-12-01T06:58:39.123Z',
      '2026-12-01T06:58:39Z',
      '2026-12-01T09:58:39+03:00',
      '2026-12-01',
      7,
    ];

    for (const params of [undefined, { offset: true }] as const) {
      // Act
      const ours = z.iso.datetime(params);
      const theirs = mini.iso.datetime(params);

      // Assess
      expect(ours).toBeInstanceOf(mini.ZodMiniISODateTime);
      expect(ours._zod.def).toEqual(theirs._zod.def);
      expect(inputs.map((input) => ours.safeParse(input).success)).toEqual(
        inputs.map((input) => theirs.safeParse(input).success),
      );
      expect(ours.safeParse('2026-12-01').error?.issues).toEqual(
        theirs.safeParse('2026-12-01').error?.issues,
      );
    }
  });
});
