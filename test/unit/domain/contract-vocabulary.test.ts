import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, SCHEMAS_DIR } from '../../../scripts/event-schemas';

/*
 * What an integrator validating our events against the design contract checks (design "Normalized
 * events"): `metadata.origin` and every `reason.code` only from the contract's lists. The lists are
 * written out here as the contract states them (not imported from the code under test). The committed
 * JSON Schemas are walked, every detail-type and both drafts: a reason code or an origin outside the
 * lists, anywhere a reason or an origin is published, fails. (event-schemas.test.ts keeps every event the
 * real producers emit within these schemas, and the files equal to what `npm run schemas` generates.)
 */
const CONTRACT_ORIGINS = ['callback', 'poll', 'registration', 'buffer', 'manual'];
const CONTRACT_REASON_CODES = [
  'INSUFFICIENT_FUNDS',
  'REJECTED_BY_CUSTOMER',
  'TIMED_OUT',
  'WRONG_PIN',
  'LIMIT_REACHED',
  'PAYER_NOT_FOUND',
  'PAYEE_NOT_FOUND',
  'NOT_ALLOWED',
  'SUBSCRIBER_BUSY',
  'UNREACHABLE',
  'DUPLICATE',
  'AMOUNT_INVALID',
  'PROVIDER_ERROR',
  'UNKNOWN',
];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The values a schema admits when it lists them (enum, const), else undefined (any string). */
function listed(schema: Json): string[] | undefined {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return undefined;
  if (Array.isArray(schema.enum)) return schema.enum.map(String);
  if (schema.const !== undefined) return [String(schema.const)];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const parts = schema[key];
    if (Array.isArray(parts)) return parts.flatMap((part) => listed(part) ?? []);
  }
  return undefined;
}

/** Every `properties.<name>` schema in the document, with its path. */
function* propertiesNamed(
  node: Json,
  test: (name: string) => boolean,
  path = '$',
): Generator<[string, Json]> {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const [i, member] of node.entries()) yield* propertiesNamed(member, test, `${path}[${i}]`);
    return;
  }
  const properties = node.properties;
  if (properties && typeof properties === 'object' && !Array.isArray(properties))
    for (const [name, schema] of Object.entries(properties))
      if (test(name)) yield [`${path}.${name}`, schema];
  for (const [key, member] of Object.entries(node)) yield* propertiesNamed(member, test, `${path}/${key}`);
}

/** The reason objects' `code` schemas: any property named reason or …Reason, as published. */
function reasonCodes(document: Json): [string, string[] | undefined][] {
  return [...propertiesNamed(document, (name) => /^reason$|Reason$/.test(name))].flatMap(([path, reason]) =>
    [...propertiesNamed(reason, (name) => name === 'code')].map(
      ([codePath, code]): [string, string[] | undefined] => [`${path}${codePath.slice(1)}`, listed(code)],
    ),
  );
}

const files = (dir: string) =>
  readdirSync(join(REPO_ROOT, dir))
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({
      name: `${dir}/${f}`,
      document: JSON.parse(readFileSync(join(REPO_ROOT, dir, f), 'utf8')) as Json,
    }));

const SCHEMA_FILES = [...files(SCHEMAS_DIR), ...files(`${SCHEMAS_DIR}/draft-04`)];

describe('published events use only the contract vocabulary', () => {
  it('walks the schema of every detail-type in both drafts', () => {
    // Assess: the walk has something to walk (a renamed folder would make every check below vacuous).
    expect(SCHEMA_FILES.length).toBeGreaterThanOrEqual(2 * 20);
  });

  it.each(SCHEMA_FILES)('$name: metadata.origin is one of the contract origins', ({ document }) => {
    // Prepare
    const origins = [...propertiesNamed(document, (name) => name === 'origin')].map(([path, schema]) => ({
      path,
      values: listed(schema),
    }));
    // Assess: an origin is published, always as a closed list, each value in the contract's.
    expect(origins.length).toBeGreaterThan(0);
    for (const { path, values } of origins) {
      expect(values, `${path} must list its values`).toBeDefined();
      expect(
        values!.filter((v) => !CONTRACT_ORIGINS.includes(v)),
        path,
      ).toEqual([]);
    }
  });

  it.each(SCHEMA_FILES)('$name: every published reason.code is a contract reason code', ({ document }) => {
    // Prepare
    const codes = reasonCodes(document);
    // Assess
    for (const [path, values] of codes) {
      expect(values, `${path} must list its values`).toBeDefined();
      expect(
        values!.filter((v) => !CONTRACT_REASON_CODES.includes(v)),
        path,
      ).toEqual([]);
    }
  });

  it('the transaction, conflict, expiry, reversal and balance events all publish a reason code', () => {
    // Prepare
    const withReason = SCHEMA_FILES.filter(({ document }) => reasonCodes(document).length > 0).map(
      ({ name }) => name.replace(/^.*\//, '').replace('.json', ''),
    );
    // Assess: the walk reaches every reason the contract constrains (not vacuously green).
    for (const type of [
      'TransactionSucceeded',
      'TransactionFailed',
      'TransactionAmbiguous',
      'TransactionExpired',
      'TransactionEscalated',
      'TransactionConflict',
      'CallbackOrphaned',
      'ReversalFailed',
      'ReversalAmbiguous',
      'AccountBalanceFailed',
    ])
      expect(withReason).toContain(type);
  });
});
