import { describe, expect, it } from 'vitest';
import { jsonLimitProblem, MAX_JSON_DEPTH, MAX_MEMBER_NAME_LENGTH } from '../../../shared/util/json-limits';

/** `{"a":{"a":…1}}` with `levels` objects. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

/** `[[…1]]` with `levels` arrays. */
function nestedArrays(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe('jsonLimitProblem', () => {
  it('finds nothing wrong with an ordinary provider body or with scalars', () => {
    expect(
      jsonLimitProblem({ Body: { stkCallback: { ResultCode: 0, Items: [{ Name: 'Amount', Value: 1 }] } } }),
    ).toBeUndefined();
    expect(jsonLimitProblem(null)).toBeUndefined();
    expect(jsonLimitProblem('text')).toBeUndefined();
    expect(jsonLimitProblem([])).toBeUndefined();
  });

  it(`accepts ${MAX_JSON_DEPTH} levels of nesting and refuses one more, for objects and arrays alike`, () => {
    expect(jsonLimitProblem(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonLimitProblem(nested(MAX_JSON_DEPTH + 1))).toBe(
      `JSON is nested more than ${MAX_JSON_DEPTH} levels deep`,
    );
    expect(jsonLimitProblem(nestedArrays(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonLimitProblem(nestedArrays(MAX_JSON_DEPTH + 1))).toMatch(/nested more than/);
  });

  it('counts depth through a mix of objects and arrays', () => {
    // 20 objects each holding an array: 40 levels.
    let value: unknown = 1;
    for (let i = 0; i < 20; i++) value = { list: [value] };
    expect(jsonLimitProblem(value)).toMatch(/nested more than 32/);
  });

  it('honours a smaller configured depth', () => {
    expect(jsonLimitProblem(nested(16), { maxDepth: 16 })).toBeUndefined();
    expect(jsonLimitProblem(nested(17), { maxDepth: 16 })).toBe('JSON is nested more than 16 levels deep');
  });

  it('walks 100,000 levels without overflowing the stack', () => {
    // Prepare
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);

    // Act
    const problem = jsonLimitProblem(deep);

    // Assess
    expect(problem).toMatch(/nested more than/);
  });

  it.each([['__proto__'], ['constructor'], ['prototype']])(
    'refuses the member name %s at any depth',
    (name) => {
      // Prepare: JSON.parse makes "__proto__" an own member, as a request body would.
      const top = JSON.parse(`{"${name}":{"x":1}}`);
      const deep = JSON.parse(`{"a":[{"b":{"${name}":1}}]}`);

      // Act + Assess
      expect(jsonLimitProblem(top)).toBe(`member name "${name}" is not allowed`);
      expect(jsonLimitProblem(deep)).toBe(`member name "${name}" is not allowed`);
    },
  );

  it(`refuses a member name longer than ${MAX_MEMBER_NAME_LENGTH} characters`, () => {
    expect(jsonLimitProblem({ ['n'.repeat(MAX_MEMBER_NAME_LENGTH)]: 1 })).toBeUndefined();
    expect(jsonLimitProblem({ ['n'.repeat(MAX_MEMBER_NAME_LENGTH + 1)]: 1 })).toMatch(
      /257 characters long; the limit is 256/,
    );
  });

  it('refuses empty member names only when asked to', () => {
    expect(jsonLimitProblem({ '': 1 })).toBeUndefined();
    expect(jsonLimitProblem({ a: { '': 1 } }, { refuseEmptyNames: true })).toBe(
      'empty member names are not allowed',
    );
  });

  it('never quotes a value in its message', () => {
    const problem = jsonLimitProblem({ secret: 'hunter2-value', constructor: 'x' });
    expect(problem).not.toContain('hunter2-value');
  });

  it('refuses numbers a store cannot hold exactly only when asked to', () => {
    // Prepare
    const infinite = JSON.parse('{"a":{"b":[1e309]}}');
    const unsafe = JSON.parse('{"a":9007199254740993}');
    // Act / Assess
    expect(jsonLimitProblem(infinite)).toBeUndefined();
    expect(jsonLimitProblem(infinite, { refuseUnsafeNumbers: true })).toMatch(/not finite/);
    expect(jsonLimitProblem(unsafe, { refuseUnsafeNumbers: true })).toMatch(/beyond 2\^53/);
    expect(jsonLimitProblem({ a: 1.5, b: -3, c: 1e-7 }, { refuseUnsafeNumbers: true })).toBeUndefined();
  });
});
