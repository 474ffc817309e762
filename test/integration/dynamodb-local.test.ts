import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DYNAMODB_LOCAL_JVM_OPTIONS,
  dynamoDbLocalProcesses,
  type DynamoDbLocalHandle,
  startDynamoDbLocal,
} from '../../local/dynamodb-local';

/** The environment of the JVM in DynamoDB Local's process group (Linux /proc). */
function jvmEnvironment(handle: Pick<DynamoDbLocalHandle, 'pid'>): Record<string, string> {
  const java =
    dynamoDbLocalProcesses(handle).find(
      (pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'java',
    ) ?? handle.pid;
  return Object.fromEntries(
    readFileSync(`/proc/${java}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
}

describe('startDynamoDbLocal', () => {
  let handle: DynamoDbLocalHandle | undefined;
  const before = {
    JAVA_TOOL_OPTIONS: process.env.JAVA_TOOL_OPTIONS,
    DDB_LOCAL_TELEMETRY: process.env.DDB_LOCAL_TELEMETRY,
  };

  afterEach(async () => {
    await handle?.stop();
    handle = undefined;
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it("puts an operator's JAVA_TOOL_OPTIONS after its own and keeps their DDB_LOCAL_TELEMETRY, so theirs win, and leaves this process environment as it was", async () => {
    // Prepare: an operator who wants the full JIT, G1 and DynamoDB Local's telemetry on.
    process.env.JAVA_TOOL_OPTIONS = '-XX:TieredStopAtLevel=4 -XX:+UseG1GC';
    process.env.DDB_LOCAL_TELEMETRY = '1';
    // Act
    handle = await startDynamoDbLocal();
    // Assess
    const jvm = jvmEnvironment(handle);
    // Theirs after ours; their collector instead of ours (a JVM given two refuses to start).
    expect(jvm.JAVA_TOOL_OPTIONS).toBe('-XX:TieredStopAtLevel=1 -XX:TieredStopAtLevel=4 -XX:+UseG1GC');
    expect(jvm.DDB_LOCAL_TELEMETRY).toBe('1');
    expect(process.env.JAVA_TOOL_OPTIONS).toBe('-XX:TieredStopAtLevel=4 -XX:+UseG1GC');
    expect(process.env.DDB_LOCAL_TELEMETRY).toBe('1');
    const answer = await fetch(handle.endpoint, { method: 'POST' });
    expect(answer.status).toBeLessThan(500);
  });

  it('runs the JVM with the quick compiler only, the serial collector and telemetry off, and is stopped when the process that started it is killed and cannot run stop() (a worker killed on a time-out)', async () => {
    // Prepare: a process without JAVA_TOOL_OPTIONS that starts DynamoDB Local, prints its pid, then waits
    // forever. (One JVM serves both checks: each start costs about 3 s of CPU.)
    const { JAVA_TOOL_OPTIONS: _operators, DDB_LOCAL_TELEMETRY: _operatorsTelemetry, ...env } = process.env;
    const owner = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        "import('./local/dynamodb-local.ts').then(async (m) => { const h = await m.startDynamoDbLocal(); console.log(h.pid); setInterval(() => {}, 1000); });",
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], env },
    );
    const pid = await new Promise<number>((resolvePid, reject) => {
      owner.stdout!.once('data', (chunk: Buffer) => resolvePid(Number(chunk.toString().trim())));
      owner.once('exit', (code) => reject(new Error(`the owner exited (${code}) before printing a pid`)));
    });
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(alive()).toBe(true);
    const jvm = jvmEnvironment({ pid });
    expect(jvm.JAVA_TOOL_OPTIONS).toBe(DYNAMODB_LOCAL_JVM_OPTIONS);
    expect(DYNAMODB_LOCAL_JVM_OPTIONS.split(' ')).toEqual(
      expect.arrayContaining(['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC']),
    );
    expect(jvm.DDB_LOCAL_TELEMETRY).toBe('0');

    // Act: the owner dies without a chance to clean up.
    owner.kill('SIGKILL');

    // Assess: the DynamoDB Local group goes too.
    await vi.waitFor(() => expect(alive()).toBe(false), { timeout: 30_000, interval: 250 });
  }, 90_000);
});
