/**
 * The subset of Lambda/EventBridge filter-pattern matching the infra tests need: nested keys,
 * value lists (equality) and `{ exists: boolean }` on leaves. Arrays in the record match when any
 * element matches (Lambda flattens lists of objects the same way). `exists` only sees leaves.
 */
export function matchesFilterPattern(pattern: Record<string, unknown>, record: unknown): boolean {
  return Object.entries(pattern).every(([key, rule]) => matchesField(rule, fieldOf(record, key)));
}

function fieldOf(value: unknown, key: string): unknown[] {
  if (Array.isArray(value)) return value.flatMap((element) => fieldOf(element, key));
  if (value !== null && typeof value === 'object' && key in value)
    return [(value as Record<string, unknown>)[key]];
  return [];
}

function isLeaf(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

function leaves(values: unknown[]): unknown[] {
  return values.flatMap((v) => (Array.isArray(v) ? leaves(v) : isLeaf(v) ? [v] : []));
}

function matchesField(rule: unknown, values: unknown[]): boolean {
  if (Array.isArray(rule)) {
    const found = leaves(values);
    return rule.some((condition) => {
      if (condition !== null && typeof condition === 'object' && 'exists' in condition) {
        const present = found.some((v) => v !== null);
        return (condition as { exists: boolean }).exists ? present : !present && values.length === 0;
      }
      return found.includes(condition);
    });
  }
  if (rule !== null && typeof rule === 'object') {
    return values.some((value) => matchesFilterPattern(rule as Record<string, unknown>, value));
  }
  throw new Error(`unsupported filter rule ${JSON.stringify(rule)}`);
}
