/**
 * Writes src/events.ts, the TypeScript types of the relay's events, from the JSON Schemas the relay
 * publishes (schemas/events/<DetailType>.json, draft 2020-12, written by `npm run schemas`):
 *
 *   npm run kit:types            (from the repository root)
 *
 * A small converter for the subset of JSON Schema those files use (type, const, enum, anyOf, properties,
 * required, additionalProperties, items; validation keywords such as pattern or minimum have no type and
 * are kept as documentation). json-schema-to-typescript is not a dependency of this repository, and the
 * subset is small enough that owning it costs less than the dependency. An unknown keyword that changes
 * the shape fails the generation instead of producing a wrong type.
 * test/types.test.ts fails when src/events.ts differs from what this script generates now.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as prettier from 'prettier';
import { parseCli } from '../../../scripts/cli';

const KIT = resolve(import.meta.dirname, '..');
export const REPO_ROOT = resolve(KIT, '../..');
export const SCHEMAS_DIR = join(REPO_ROOT, 'schemas/events');
export const TYPES_FILE = join(KIT, 'src/events.ts');

type Schema = Record<string, unknown>;

/** Keywords that only constrain values: they become documentation, not types. */
const DOCUMENTATION = new Set([
  '$schema',
  '$id',
  'title',
  'description',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'propertyNames',
]);
const SHAPE = new Set([
  'type',
  'const',
  'enum',
  'anyOf',
  'properties',
  'required',
  'additionalProperties',
  'items',
]);

class UnsupportedSchemaError extends Error {
  constructor(where: string, keyword: string) {
    super(`${where}: JSON Schema keyword "${keyword}" is not supported by scripts/generate-types.ts`);
    this.name = 'UnsupportedSchemaError';
  }
}

const literal = (value: unknown) => JSON.stringify(value);

function comment(schema: Schema, indent: string): string {
  const notes: string[] = [];
  if (typeof schema.description === 'string') notes.push(schema.description);
  const constraints = ['format', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'minLength', 'minItems']
    .filter((key) => schema[key] !== undefined && !(key === 'pattern' && schema.format !== undefined))
    .filter((key) => !(key === 'maximum' && schema[key] === Number.MAX_SAFE_INTEGER))
    .map((key) => `${key}: ${typeof schema[key] === 'string' ? schema[key] : literal(schema[key])}`);
  // Long generated patterns (uuid, date-time) say less than their format: the format is kept instead.
  if (constraints.length) notes.push(`(${constraints.join(', ')})`);
  if (!notes.length) return '';
  const text = notes.join(' ').replace(/\*\//g, '*\\/');
  return `${indent}/** ${text} */\n`;
}

function typeOf(schema: Schema, where: string, indent: string): string {
  for (const keyword of Object.keys(schema))
    if (!DOCUMENTATION.has(keyword) && !SHAPE.has(keyword)) throw new UnsupportedSchemaError(where, keyword);
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map(literal).join(' | ');
  if (Array.isArray(schema.anyOf))
    return schema.anyOf
      .map((branch, i) => typeOf(branch as Schema, `${where}/anyOf/${i}`, indent))
      .join(' | ');
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (types.length === 0) return 'unknown';
  return types.map((type) => primitive(String(type), schema, where, indent)).join(' | ');
}

function primitive(type: string, schema: Schema, where: string, indent: string): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const items = schema.items as Schema | undefined;
      const item = items ? typeOf(items, `${where}/items`, indent) : 'unknown';
      return /[|&]/.test(item) ? `Array<${item}>` : `${item}[]`;
    }
    case 'object':
      return objectType(schema, where, indent);
    default:
      throw new UnsupportedSchemaError(where, `type: ${type}`);
  }
}

function objectType(schema: Schema, where: string, indent: string): string {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const inner = `${indent}  `;
  const lines = Object.entries(properties).map(([name, property]) => {
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : literal(name);
    const optional = required.has(name) ? '' : '?';
    return `${comment(property, inner)}${inner}${key}${optional}: ${typeOf(property, `${where}/${name}`, inner)};`;
  });
  const extra = schema.additionalProperties;
  if (extra !== undefined && extra !== false) {
    const value =
      extra === true || Object.keys(extra as Schema).length === 0
        ? 'unknown'
        : typeOf(extra as Schema, `${where}/additionalProperties`, inner);
    lines.push(`${inner}[key: string]: ${value};`);
  }
  return lines.length ? `{\n${lines.join('\n')}\n${indent}}` : 'Record<string, never>';
}

/** The generated module: one interface per detail-type, their union and the list of type names. */
export async function generateTypes(schemasDir = SCHEMAS_DIR): Promise<string> {
  const files = (await readdir(schemasDir)).filter((name) => name.endsWith('.json')).sort();
  const names: string[] = [];
  const blocks: string[] = [];
  for (const file of files) {
    const schema = JSON.parse(await readFile(join(schemasDir, file), 'utf8')) as Schema;
    const name = String(schema.title);
    if (!/^[A-Z][A-Za-z0-9]*$/.test(name)) throw new UnsupportedSchemaError(file, `title: ${name}`);
    names.push(name);
    const { description: _d, ...shape } = schema;
    blocks.push(
      `${comment({ description: schema.description }, '')}export interface ${name} ${typeOf(shape, file, '')}`,
    );
  }
  const source = `// Generated by scripts/generate-types.ts from schemas/events/*.json (\`npm run kit:types\`). Do not edit.

${blocks.join('\n\n')}

/** Every event the relay publishes: the body of a webhook, the \`detail\` of an EventBridge event. */
export type RelayEvent = ${names.join(' | ')};

/** The event types (\`metadata.type\`, EventBridge \`detail-type\`). */
export type RelayEventType = RelayEvent['metadata']['type'];

/** The event of one type. */
export type RelayEventOf<T extends RelayEventType> = Extract<RelayEvent, { metadata: { type: T } }>;

export const RELAY_EVENT_TYPES: readonly RelayEventType[] = ${literal(names)};
`;
  const options = (await prettier.resolveConfig(TYPES_FILE)) ?? {};
  return prettier.format(source, { ...options, filepath: TYPES_FILE });
}

const USAGE = `Usage: npm run kit:types

Writes packages/subscriber-kit/src/events.ts, the subscriber kit's event types, from schemas/events/*.json
(run it after npm run schemas; packages/subscriber-kit/README.md). No options.`;

async function main(): Promise<void> {
  parseCli(USAGE, { options: {} });
  await writeFile(TYPES_FILE, await generateTypes(), 'utf8');
  console.log(`wrote ${TYPES_FILE}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
