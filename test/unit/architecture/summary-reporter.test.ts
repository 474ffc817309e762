import { describe, expect, it } from 'vitest';
import { coresBusy, countTests, cpuSummary, flakyTests } from '../../helpers/summary-reporter';

/** A test file as the reporter sees it: its own state and its tests' states. */
const file = (state: string, tests: string[]) => ({
  state: () => state,
  children: { allTests: () => tests.map((s) => ({ result: () => ({ state: s }) })) },
});

describe('the summary line at the end of a run', () => {
  it('counts the tests of each outcome', () => {
    // Act
    const counted = countTests([
      file('passed', ['passed', 'passed', 'skipped']),
      file('failed', ['failed', 'passed']),
    ]);

    // Assess
    expect(counted).toEqual({ passed: 3, failed: 1, skipped: 1 });
  });

  it('counts a file whose beforeAll failed as a failure, though vitest marks its tests skipped', () => {
    // Act
    const counted = countTests([file('failed', ['skipped', 'skipped']), file('failed', [])]);

    // Assess: the hook timeout and the file that did not load.
    expect(counted).toEqual({ passed: 0, failed: 2, skipped: 2 });
  });
});

describe('the CPU summary of TEST_CPU_LOG', () => {
  it('adds up the CPU of each lane and lists the costliest files first', () => {
    // Prepare
    const log = [
      { file: 'test/unit/a.test.ts', selfMs: 1000, childrenMs: 0 },
      { file: 'test/clients/b.test.ts', selfMs: 500, childrenMs: 0 },
      { file: 'test/e2e/c.test.ts', selfMs: 2000, childrenMs: 5000, dynamoMs: 3000 },
    ]
      .map((row) => JSON.stringify(row))
      .join('\n');

    // Act
    const lines = cpuSummary(`${log}\n`).trim().split('\n');

    // Assess
    expect(lines.slice(1, 3)).toEqual(['     1.5 s  fast lane', '    10.0 s  dynamodb lane']);
    expect(lines[3]).toBe('    10.0 s  test/e2e/c.test.ts (child processes 5.0 s, DynamoDB Local 3.0 s)');
    expect(lines.at(-1)).toBe(
      '     0.5 s  test/clients/b.test.ts (child processes 0.0 s, DynamoDB Local 0.0 s)',
    );
  });
});

describe('the cores the test files kept busy', () => {
  it("spreads each file's CPU over its run time, window by window", () => {
    // Prepare: one file on a core for 30 s; beside it, one using half a core for 60 s.
    const files = [
      { startedAt: 1_000, wallMs: 30_000, cpuMs: 30_000 },
      { startedAt: 1_000, wallMs: 60_000, cpuMs: 30_000 },
      // A DynamoDB Local instance's line: no start, not on the timeline.
      { wallMs: 0, cpuMs: 90_000 },
    ];

    // Act
    const busy = coresBusy(files, 30_000);

    // Assess
    expect(busy).toEqual([1.5, 0.5]);
  });

  it('splits a file across the windows it overlaps', () => {
    // Act: 15 s of CPU over 45 s of run, starting 15 s in (the first file starts the timeline).
    const busy = coresBusy(
      [
        { startedAt: 0, wallMs: 1, cpuMs: 0 },
        { startedAt: 15_000, wallMs: 45_000, cpuMs: 15_000 },
      ],
      30_000,
    );

    // Assess: a third of a core over 15 s of the first window and all 30 s of the second.
    expect(busy.map((cores) => Number(cores.toFixed(3)))).toEqual([0.167, 0.333]);
  });
});

describe('the flaky tests at the end of a run', () => {
  const test = (fullName: string, flaky: boolean | undefined, errors?: Array<{ message: string }>) => ({
    fullName,
    diagnostic: () => (flaky === undefined ? undefined : { flaky }),
    result: () => ({ errors }),
  });

  it('lists the tests that passed only on their retry, and no other', () => {
    // Prepare
    const modules = [
      {
        relativeModuleId: 'test/e2e/a.test.ts',
        children: {
          allTests: () => [
            test('waits', true, [{ message: 'gave up after 21 s (--timeout)' }]),
            test('ok', false),
          ],
        },
      },
      { relativeModuleId: 'test/e2e/b.test.ts', children: { allTests: () => [test('skipped', undefined)] } },
    ];
    // Act
    const flaky = flakyTests(modules);
    // Assess
    expect(flaky.map((f) => f.name)).toEqual(['test/e2e/a.test.ts > waits']);
  });

  it("keeps what the first try failed with, cut to a transcript's length", () => {
    // Prepare
    const long = `ran: npm run sim -- momo pay\n${'x'.repeat(10_000)}`;
    const modules = [
      {
        relativeModuleId: 'test/e2e/a.test.ts',
        children: { allTests: () => [test('sim', true, [{ message: long }])] },
      },
      { relativeModuleId: 'test/e2e/b.test.ts', children: { allTests: () => [test('none kept', true)] } },
    ];
    // Act
    const [sim, none] = flakyTests(modules);
    // Assess
    expect(sim!.firstFailure.startsWith('ran: npm run sim -- momo pay\n')).toBe(true);
    expect(sim!.firstFailure.length).toBe(6_000);
    expect(none!.firstFailure).toBe('(no error kept)');
  });
});
