import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { EVENT_TYPES } from '../../../shared/domain/event-envelope';
import { EVENT_DETAIL_SCHEMAS } from '../../../shared/domain/event-schemas';
import { generateTypes, SCHEMAS_DIR, TYPES_FILE } from '../scripts/generate-types';
import { RELAY_EVENT_TYPES, type RelayEventOf, type RelayEventType } from '../src/index.js';
import { succeeded } from './fixtures';

let scratch: string | undefined;
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

describe("the kit's event types", () => {
  it('are what the generator makes of schemas/events now (run `npm run kit:types` after `npm run schemas`)', async () => {
    // Act
    const generated = await generateTypes();

    // Assess
    expect(await readFile(TYPES_FILE, 'utf8')).toBe(generated);
  });

  it('come out different when a schema changes, so the check above catches stale types', async () => {
    // Prepare
    scratch = await mkdtemp(join(tmpdir(), 'kit-schemas-'));
    await cp(SCHEMAS_DIR, scratch, { recursive: true });
    const file = join(scratch, 'TransactionSucceeded.json');
    const schema = JSON.parse(await readFile(file, 'utf8'));
    schema.properties.data.properties.stateVersion = { type: 'integer', minimum: 1 };
    await writeFile(file, JSON.stringify(schema));

    // Act
    const generated = await generateTypes(scratch);

    // Assess
    expect(generated).not.toBe(await readFile(TYPES_FILE, 'utf8'));
    expect(generated).toContain('stateVersion?: number;');
  });

  it('name every event type the relay publishes', () => {
    expect([...RELAY_EVENT_TYPES].sort()).toEqual([...EVENT_TYPES].sort());
  });

  it("type an event the relay's own schema accepts", () => {
    // Prepare / Act
    const parsed = EVENT_DETAIL_SCHEMAS.TransactionSucceeded.safeParse(succeeded);

    // Assess
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expectTypeOf<RelayEventOf<'TransactionSucceeded'>['data']['status']>().toEqualTypeOf<'SUCCEEDED'>();
    expectTypeOf<'TransactionSucceeded'>().toExtend<RelayEventType>();
  });
});
