import { ESLint } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const eslint = new ESLint({ cwd: ROOT });

/** The timing-rule findings (no-restricted-syntax) ESLint reports for `body` as a test of test/e2e. */
async function timingFindings(body: string): Promise<string[]> {
  const code = `import { expect, it, vi } from 'vitest';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
declare const relay: { flush(): Promise<void>; events: unknown[] };
declare function work(): Promise<void>;
it('probe', async () => {
${body}
});
`;
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, 'test/e2e/probe.test.ts') });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

describe('the timing rules of the tests (docs/development.md#testing-on-a-busy-machine) are lint rules', () => {
  it.each([
    [
      'a fixed sleep before an assertion of absence',
      'await sleep(1000);\nawait relay.flush();\nexpect(relay.events).toEqual([]);',
    ],
    [
      'an inline setTimeout sleep before an assertion',
      'await new Promise((r) => setTimeout(r, 500));\nexpect(relay.events).toHaveLength(1);',
    ],
    [
      'an elapsed Date.now() bound',
      'const started = Date.now();\nawait work();\nexpect(Date.now() - started).toBeLessThan(2000);',
    ],
    [
      'an elapsed performance.now() bound through a variable',
      'const t0 = performance.now();\nawait work();\nconst elapsed = performance.now() - t0;\nexpect(elapsed).toBeLessThan(700);',
    ],
    [
      'a process.hrtime measurement',
      'const t0 = process.hrtime.bigint();\nawait work();\nexpect(t0).toBeDefined();',
    ],
  ])('flags %s', async (_what, body) => {
    expect((await timingFindings(body)).length).toBeGreaterThan(0);
  });

  it.each([
    [
      'a wait for a positive condition',
      'await vi.waitFor(() => expect(relay.events).toHaveLength(1), { timeout: 30_000 });\nexpect(relay.events).toHaveLength(1);',
    ],
    [
      'a polling loop that sleeps between looks',
      'for (let i = 0; i < 10 && relay.events.length === 0; i++) await sleep(100);\nexpect(relay.events).toHaveLength(1);',
    ],
    [
      'a timestamp an hour ago',
      'const from = new Date(Date.now() - 3_600_000);\nexpect(from).toBeDefined();',
    ],
    [
      'fake timers driven by the test',
      'vi.useFakeTimers();\nawait vi.advanceTimersByTimeAsync(600);\nexpect(relay.events).toEqual([]);',
    ],
  ])('allows %s', async (_what, body) => {
    expect(await timingFindings(body)).toEqual([]);
  });
});
