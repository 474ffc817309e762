import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CDK_FOLDERS, FAST_FOLDERS, laneOf, USES_CDK, USES_DYNAMODB_LOCAL } from '../../helpers/lanes';

const ROOT = join(import.meta.dirname, '../../..');

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [relative(ROOT, path).split('\\').join('/')] : [];
  });
}

describe('test lanes', () => {
  it('keep the files that use DynamoDB Local out of the lanes that start none', () => {
    // Prepare
    // This file names the patterns it looks for.
    const files = testFiles(join(ROOT, 'test')).filter((file) => !file.endsWith('test-lanes.test.ts'));
    // Act
    const misplaced = files.filter(
      (file) =>
        laneOf(file) !== 'dynamodb' && USES_DYNAMODB_LOCAL.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    // Assess
    expect(misplaced, 'move these under test/integration (docs/development.md#test-lanes)').toEqual([]);
  });

  it('keep the files that build CDK constructs out of the fast lane', () => {
    // Prepare
    // This file names the patterns it looks for.
    const files = testFiles(join(ROOT, 'test')).filter(
      (file) => laneOf(file) === 'fast' && !file.endsWith('test-lanes.test.ts'),
    );
    // Act
    const misplaced = files.filter((file) => USES_CDK.test(readFileSync(join(ROOT, file), 'utf8')));
    // Assess
    expect(misplaced, 'move these under test/infra (docs/development.md#test-lanes)').toEqual([]);
    expect(USES_CDK.test("import { App, Stack } from 'aws-cdk-lib';")).toBe(true);
    expect(USES_CDK.test("import { Template } from 'aws-cdk-lib/assertions';")).toBe(true);
    expect(USES_CDK.test("import { RELAY_FUNCTIONS } from '../../../infra/bundling';")).toBe(false);
  });

  it('name only folders that exist', () => {
    expect([...FAST_FOLDERS, ...CDK_FOLDERS].filter((folder) => !existsSync(join(ROOT, folder)))).toEqual([]);
  });

  it('put a new folder in the dynamodb lane, which has everything a test may need', () => {
    expect(laneOf('test/unit/domain/status.test.ts')).toBe('fast');
    expect(laneOf('test/infra/alarms.test.ts')).toBe('cdk');
    expect(laneOf('test/package/npm-pack.test.ts')).toBe('cdk');
    expect(laneOf('test/e2e/momo.test.ts')).toBe('dynamodb');
    expect(laneOf('test/statements/monthly.test.ts')).toBe('dynamodb');
    expect(laneOf('test/unitary/x.test.ts')).toBe('dynamodb');
  });

  it('recognise what uses DynamoDB Local, and not what only imports a helper beside it', () => {
    expect(USES_DYNAMODB_LOCAL.test('table = await createTestTable();')).toBe(true);
    expect(USES_DYNAMODB_LOCAL.test('relay = await startTestRelay(config);')).toBe(true);
    expect(USES_DYNAMODB_LOCAL.test('const pid = workerDynamoDb()?.pid;')).toBe(true);
    expect(USES_DYNAMODB_LOCAL.test("runTs('local/start.ts', ['--simulator'])")).toBe(true);
    expect(USES_DYNAMODB_LOCAL.test("import { silentLogger } from '../../helpers/relay';")).toBe(false);
    expect(USES_DYNAMODB_LOCAL.test('const store = new MemoryRelayStore();')).toBe(false);
  });
});
