import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DYNAMODB_LOCAL_JVM_OPTIONS,
  dynamoDbLocalProcesses,
  type DynamoDbLocalHandle,
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

/** What an owner process prints once DynamoDB Local answers: its group's pid, its endpoint, its own environment after the start. */
interface Started {
  pid: number;
  endpoint: string;
  env: { JAVA_TOOL_OPTIONS: string | null; DDB_LOCAL_TELEMETRY: string | null };
}

const OWNER = `import('./local/dynamodb-local.ts').then(async (m) => {
  const h = await m.startDynamoDbLocal();
  const env = { JAVA_TOOL_OPTIONS: process.env.JAVA_TOOL_OPTIONS ?? null, DDB_LOCAL_TELEMETRY: process.env.DDB_LOCAL_TELEMETRY ?? null };
  console.log(JSON.stringify({ pid: h.pid, endpoint: h.endpoint, env }));
  setInterval(() => {}, 1000);
});`;

/**
 * A process with the given JAVA_TOOL_OPTIONS and DDB_LOCAL_TELEMETRY (unset when absent) that starts DynamoDB
 * Local, prints what it started, then waits forever. In a process of its own: what is checked is how the
 * start treats an operator's environment, and this worker's environment belongs to its other test files.
 */
async function startOwner(operator: Partial<Record<'JAVA_TOOL_OPTIONS' | 'DDB_LOCAL_TELEMETRY', string>>) {
  const { JAVA_TOOL_OPTIONS: _operators, DDB_LOCAL_TELEMETRY: _operatorsTelemetry, ...env } = process.env;
  const owner = spawn(process.execPath, ['--import', 'tsx', '-e', OWNER], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...env, ...operator },
  });
  const started = await new Promise<Started>((resolveStarted, reject) => {
    let out = '';
    owner.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolveStarted(JSON.parse(out.slice(0, out.indexOf('\n'))) as Started);
    });
    owner.once('exit', (code) => reject(new Error(`the owner exited (${code}) before printing a pid`)));
  });
  owners.push({ owner, pid: started.pid });
  return { owner, ...started };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The owners this file started and their DynamoDB Local groups, ended after each test. */
const owners: Array<{ owner: ChildProcess; pid: number }> = [];

describe('startDynamoDbLocal', () => {
  afterEach(async () => {
    // An owner's DynamoDB Local is stopped by its watchdog once the owner is gone (the second test checks
    // it); the file leaves nothing running.
    for (const { owner, pid } of owners.splice(0)) {
      if (owner.exitCode === null) owner.kill('SIGKILL');
      await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 30_000, interval: 250 });
    }
  });

  it("puts an operator's JAVA_TOOL_OPTIONS after its own and keeps their DDB_LOCAL_TELEMETRY, so theirs win, and leaves its process environment as it was", async () => {
    // Prepare: an operator who wants the full JIT, G1 and DynamoDB Local's telemetry on.
    const operator = { JAVA_TOOL_OPTIONS: '-XX:TieredStopAtLevel=4 -XX:+UseG1GC', DDB_LOCAL_TELEMETRY: '1' };
    // Act
    const started = await startOwner(operator);
    // Assess
    const jvm = jvmEnvironment(started);
    // Theirs after ours; their collector instead of ours (a JVM given two refuses to start).
    expect(jvm.JAVA_TOOL_OPTIONS).toBe('-XX:TieredStopAtLevel=1 -XX:TieredStopAtLevel=4 -XX:+UseG1GC');
    expect(jvm.DDB_LOCAL_TELEMETRY).toBe('1');
    expect(started.env).toEqual(operator);
    const answer = await fetch(started.endpoint, { method: 'POST' });
    expect(answer.status).toBeLessThan(500);
  });

  it('runs the JVM with the quick compiler only, the serial collector and telemetry off, and is stopped when the process that started it is killed and cannot run stop() (a worker killed on a time-out)', async () => {
    // Prepare: an owner without JAVA_TOOL_OPTIONS or DDB_LOCAL_TELEMETRY. (One JVM serves both checks:
    // each start costs about 3 s of CPU.)
    const { owner, pid, env } = await startOwner({});
    expect(alive(pid)).toBe(true);
    const jvm = jvmEnvironment({ pid });
    expect(jvm.JAVA_TOOL_OPTIONS).toBe(DYNAMODB_LOCAL_JVM_OPTIONS);
    expect(DYNAMODB_LOCAL_JVM_OPTIONS.split(' ')).toEqual(
      expect.arrayContaining(['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC']),
    );
    expect(jvm.DDB_LOCAL_TELEMETRY).toBe('0');
    expect(env).toEqual({ JAVA_TOOL_OPTIONS: null, DDB_LOCAL_TELEMETRY: null });

    // Act: the owner dies without a chance to clean up.
    owner.kill('SIGKILL');

    // Assess: the DynamoDB Local group goes too.
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 30_000, interval: 250 });
  }, 90_000);
});
