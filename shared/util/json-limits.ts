/**
 * Structural limits on parsed JSON, checked without recursion: provider bodies are a few levels deep,
 * and DynamoDB refuses maps nested deeper than 32 levels, so anything deeper is refused as bad input
 * instead of failing in storage (or overflowing the stack of a recursive walk).
 */
export const MAX_JSON_DEPTH = 32;
export const MAX_MEMBER_NAME_LENGTH = 256;
/** Member names that change an object's prototype or its class check when assigned or marshalled. */
export const RESERVED_MEMBER_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export interface JsonLimits {
  maxDepth?: number;
  /** Also refuse empty member names (DynamoDB map keys cannot be empty). */
  refuseEmptyNames?: boolean;
  /** Also refuse numbers a store cannot hold exactly: not finite (1e309), or integers beyond 2^53. */
  refuseUnsafeNumbers?: boolean;
}

function numberProblem(value: unknown): string | undefined {
  if (typeof value !== 'number') return undefined;
  if (!Number.isFinite(value)) return 'a number is too large to be stored (not finite once parsed)';
  if (Number.isInteger(value) && !Number.isSafeInteger(value))
    return 'an integer is beyond 2^53 and would lose digits; send it as a string';
  return undefined;
}

/** The first problem found, as a message a person can act on; undefined when the value is within limits. */
export function jsonLimitProblem(value: unknown, limits: JsonLimits = {}): string | undefined {
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH;
  const stack: { node: unknown; depth: number }[] = [{ node: value, depth: 1 }];
  while (stack.length) {
    const { node, depth } = stack.pop()!;
    if (limits.refuseUnsafeNumbers) {
      const problem = numberProblem(node);
      if (problem) return problem;
    }
    if (node === null || typeof node !== 'object') continue;
    if (depth > maxDepth) return `JSON is nested more than ${maxDepth} levels deep`;
    if (Array.isArray(node)) {
      for (const item of node) stack.push({ node: item, depth: depth + 1 });
      continue;
    }
    for (const name of Object.keys(node)) {
      if (RESERVED_MEMBER_NAMES.has(name)) return `member name "${name}" is not allowed`;
      if (name.length > MAX_MEMBER_NAME_LENGTH)
        return `a member name is ${name.length} characters long; the limit is ${MAX_MEMBER_NAME_LENGTH}`;
      if (limits.refuseEmptyNames && name === '') return 'empty member names are not allowed';
      stack.push({ node: (node as Record<string, unknown>)[name], depth: depth + 1 });
    }
  }
  return undefined;
}
