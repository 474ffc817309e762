import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHANGES_SHARED_STATE, NEEDS_ISOLATION } from '../../helpers/isolation';
import { laneOf } from '../../helpers/lanes';

const ROOT = join(import.meta.dirname, '../../..');

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

describe('test files that share a worker', () => {
  it('leave module mocks, environment stubs and spies on shared modules to the isolated files', () => {
    // Prepare
    // This file names the patterns it looks for.
    const files = testFiles(join(ROOT, 'test')).filter((file) => !file.endsWith('test-isolation.test.ts'));
    // Act
    const unlisted = files.filter(
      (file) =>
        !(file in NEEDS_ISOLATION) && CHANGES_SHARED_STATE.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    // Assess
    expect(unlisted, 'add these to NEEDS_ISOLATION in test/helpers/isolation.ts, with the reason').toEqual(
      [],
    );
  });

  it('undo every AWS SDK client mock they make: it patches a class every later file of the worker shares', () => {
    // Prepare
    const files = testFiles(join(ROOT, 'test')).filter((file) => !file.endsWith('test-isolation.test.ts'));
    // Act: a file that mocks a client (aws-sdk-client-mock) restores it as often as it mocks one.
    const leaking = files.filter((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      const mocks = text.match(/mockClient\(/g)?.length ?? 0;
      const restores = text.match(/\.restore\(\)/g)?.length ?? 0;
      return mocks > restores;
    });
    // Assess
    expect(leaking, 'restore the mock, e.g. afterAll(() => sqs.restore())').toEqual([]);
  });

  it('keep the dynamodb lane free of isolated files: each would load the relay and start a DynamoDB Local of its own, last in its group', () => {
    // Act
    const isolated = Object.keys(NEEDS_ISOLATION).filter((file) => laneOf(file) === 'dynamodb');
    // Assess
    expect(
      isolated,
      "give the relay its own environment (startTestRelay's env) or check a process's environment in a child process (docs/development.md)",
    ).toEqual([]);
  });

  it('lists only files that exist', () => {
    const files = new Set(testFiles(join(ROOT, 'test')));
    expect(Object.keys(NEEDS_ISOLATION).filter((file) => !files.has(file))).toEqual([]);
  });

  it('recognises what changes shared state, and not what only reads it', () => {
    expect(CHANGES_SHARED_STATE.test("vi.mock('node:fs/promises')")).toBe(true);
    expect(CHANGES_SHARED_STATE.test("vi.stubEnv('TZ', 'UTC')")).toBe(true);
    expect(CHANGES_SHARED_STATE.test('process.env.TZ = zone;')).toBe(true);
    expect(CHANGES_SHARED_STATE.test("vi.spyOn(http, 'request')")).toBe(true);
    expect(CHANGES_SHARED_STATE.test("const full = process.env.HOSTILE_FULL === '1';")).toBe(false);
    expect(CHANGES_SHARED_STATE.test('vi.spyOn(api, "check")')).toBe(false);
  });
});
