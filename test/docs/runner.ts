/**
 * Runs the commands the docs show against a started relay, as a reader would type them, with one uniform
 * rewrite: the relay's and the simulator's ports, the events file, and `npm run <script> --` (the script
 * from package.json, with `--relay/--sim/--config` for `npm run sim`). Nothing else is changed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/child-process';
import { type Command, inOrder } from './markdown';

export interface Target {
  relayUrl: string;
  simUrl?: string;
  eventsFile: string;
  config: string;
}

const SCRIPTS: Record<string, string> = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;

/**
 * `scripts` stands in for package.json's scripts by name (a bundle of the same entry point,
 * test/helpers/bundled-script.ts).
 */
export function rewrite(text: string, t: Target, scripts: Record<string, string> = {}): string {
  let s = text
    .replaceAll('http://localhost:3000', t.relayUrl)
    .replace(/(?<![\w/.:-])localhost:3000\b/g, t.relayUrl.replace(/^http:\/\//, ''))
    .replaceAll('/path/to/repo/.relay/events.ndjson', t.eventsFile)
    .replace(/(?<![\w/.-])\.relay\/events\.ndjson/g, t.eventsFile);
  if (t.simUrl) s = s.replaceAll('http://127.0.0.1:4010', t.simUrl);
  s = s.replace(/^npm run ([\w:-]+)(?: --)?(?=\s|$)/, (whole, name: string) => {
    const script = scripts[name] ?? SCRIPTS[name];
    if (!script) throw new Error(`package.json has no script "${name}" (${whole})`);
    const flags = name === 'sim' ? ` --relay ${t.relayUrl} --sim ${t.simUrl} --config ${t.config}` : '';
    return `${script}${flags}`;
  });
  return s;
}

/** A console line of the docs as fragments: `…` matches anything, so does DynamoDB Local's port. */
export function consoleFragments(line: string, t: Target): string[] {
  return rewrite(line.trim(), t)
    .replace(/(DynamoDB Local http:\/\/127\.0\.0\.1:)\d+/, '$1…')
    .split('…')
    .filter(Boolean);
}

/**
 * A transcript line as fragments, values that differ on every run (references, receipts, conversation ids)
 * matching anything: the docs say "references differ on every run".
 */
export function perRun(line: string): string[] {
  return line
    .replace(
      /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\bws_CO_\d+|\b\d+-\d+-\d+\b|\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{10}\b/g,
      '…',
    )
    .split('…')
    .filter(Boolean);
}

/**
 * The fragments as written, and as they read when the callback was acked from the ingress buffer (DynamoDB
 * Local too slow on a busy machine): the README says so, docs/ingress-buffer.md (origin `buffer`). A
 * buffered success is applied a moment later; when the relay's status check settles the transaction first,
 * the held success is never published and the verdict's evidence is the status check's alone (the README
 * says that too): the events, and the transaction's evidence, read without it.
 */
export function readings(fragments: string[]): string[][] {
  const buffered = fragments.map((f) =>
    f
      .replaceAll('(callback)', '(buffer)')
      .replaceAll('callback(', 'buffer(')
      .replaceAll('"source":"callback"', '"source":"buffer"'),
  );
  const all = buffered.join('\n') === fragments.join('\n') ? [fragments] : [fragments, buffered];
  const held = fragments.findIndex((f) => f.includes('"detail-type":"TransactionAmbiguous"'));
  const settled = fragments.findIndex((f) => f.includes('"detail-type":"TransactionSucceeded"'));
  if (held >= 0 && settled > held) all.push(fragments.filter((_, i) => i !== held));
  // The same race read from the transaction: its verdict rests on the status check alone (the buffered
  // callback, applied after it, agrees and adds nothing), while its history still lists the callback.
  const heldEvidence = fragments.findIndex((f) => f === '"source":"callback"');
  const checkEvidence = fragments.findIndex((f) => f === '"source":"status-api"');
  if (heldEvidence >= 0 && checkEvidence > heldEvidence)
    all.push(fragments.filter((_, i) => i !== heldEvidence));
  return all;
}

export const isSim = (text: string) => /^npm run sim(\s|$)/.test(text);
export const isRelayStart = (text: string) => /^npm start(\s|$)/.test(text);

/**
 * Reads that may be repeated until their promise holds (the relay works asynchronously). Not a read of the
 * events file: a reader pastes it once, so the docs wait for the event themselves (test/docs/waits.test.ts)
 * and the check runs it once, as pasted.
 */
export function isRead(text: string): boolean {
  if (!/^(curl|grep|tail|cat)\b/.test(text)) return false;
  if (readsEvents(text)) return false;
  return !/\s(-X|--request)\s+(POST|PUT|PATCH|DELETE)\b/.test(text) && !/\s(-d|--data[\w-]*)\s/.test(text);
}

/** A command that reads the events file (`grep "$REF" .relay/events.ndjson`). */
export const readsEvents = (text: string) =>
  /^(grep|tail|cat)\b/.test(text) && /(?<![\w/.-])\.relay\/events\.ndjson\b/.test(text);

/**
 * The wait a doc puts before reading the events file, pasted as is in bash: until grep finds the event or
 * the doc's own time bound has passed (`end=$((SECONDS + 60)); until grep -s "$REF" .relay/events.ndjson |
 * grep -q TransactionSucceeded || [ $SECONDS -ge $end ]; do sleep 0.5; done`). Bounded by time, not by a
 * count of tries: on a loaded machine each try costs more and a count would give up early.
 */
export const waitsForEvent = (text: string) =>
  /^end=\$\(\(SECONDS \+ \d+\)\); until grep -s .*\.relay\/events\.ndjson \| grep -q \w+ \|\| \[ \$SECONDS -ge \$end \]; do sleep [\d.]+; done$/.test(
    text,
  );

export interface Result {
  output: string;
  code: number;
  status?: number;
  /** The relay acked from its ingress buffer (header `x-relay-buffered: true`). */
  buffered?: boolean;
}

const NONCE = `__DOCS_CHECK_${process.pid}__`;

/** One bash for the blocks of a file: variables set by one command (REF=…) are there for the next. */
export class Shell {
  private readonly child: ChildProcess;
  private buffer = '';
  private waiting?: () => void;

  constructor() {
    this.child = spawn('bash', ['--noprofile', '--norc'], {
      cwd: ROOT,
      env: { ...process.env, LC_ALL: 'C.UTF-8' },
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk) => {
      this.buffer += chunk;
      this.waiting?.();
    });
    this.child.stderr!.on('data', (chunk) => (this.buffer += chunk));
    this.child.stdin!.write('exec 2>&1\nset +e\n');
  }

  async run(command: string, timeoutMs: number): Promise<Result> {
    this.buffer = '';
    const curl = command.startsWith('curl ');
    const text = curl
      ? command.replace(/^curl /, `curl -w '\\n${NONCE}HTTP %{http_code} %header{x-relay-buffered}\\n' `)
      : command;
    this.child.stdin!.write(`{ ${text}\n} < /dev/null\nprintf '\\n${NONCE}RC %s\\n' "$?"\n`);
    const done = new RegExp(`\\n${NONCE}RC (\\d+)\\n`);
    const deadline = Date.now() + timeoutMs;
    while (!done.test(this.buffer)) {
      if (Date.now() > deadline || this.child.exitCode !== null) {
        this.close();
        throw new Error(`no answer within ${timeoutMs} ms from: ${command}\noutput so far:\n${this.buffer}`);
      }
      await new Promise<void>((r) => {
        this.waiting = r;
        setTimeout(r, 200);
      });
    }
    const code = Number(done.exec(this.buffer)![1]);
    let output = this.buffer.replace(done, '');
    const http = new RegExp(`\\n?${NONCE}HTTP (\\d+) ?(\\S*)\\n`).exec(output);
    if (http) output = output.replace(http[0], '');
    return { output, code, status: http ? Number(http[1]) : undefined, buffered: http?.[2] === 'true' };
  }

  get closed(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null || this.killed;
  }

  private killed = false;

  close(): void {
    this.killed = true;
    if (this.child.exitCode === null && this.child.pid) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

/** A command of its own (the `npm run sim` examples, several at a time), in its own process group. */
export function runAlone(command: string, timeoutMs: number): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-c', `${command} < /dev/null`], {
      cwd: ROOT,
      env: { ...process.env, SIM_PORT: '', SIM_TIME_SCALE: '', SIM_APPROVAL_DELAY_MS: '' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const timer = setTimeout(() => {
      output += `\n(docs check: killed after ${timeoutMs} ms)`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    // 'close', not 'exit': the command's output can still be in its pipes when it exits.
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ output, code: code ?? -1 });
    });
  });
}

/** What a command's result lacks of what the docs promise; empty when the promise holds. */
export function broken(command: Command, result: Result, t: Target): string[] {
  const problems: string[] = [];
  if (result.code !== 0) problems.push(`exit code ${result.code}, not 0`);
  if (command.status !== undefined && result.status !== command.status && !sameRegistration(command, result))
    problems.push(`HTTP ${result.status}, promised ${command.status}`);
  // A callback acked from the ingress buffer gets the provider's normal ack without a receipt, "duplicate":false
  // (docs/ingress-buffer.md): the status is what the docs promise, the body is that documented ack.
  if (command.output && !result.buffered) {
    const fragments = command.output.map((f) => rewrite(f, t));
    if (!readings(fragments).some((r) => inOrder(result.output, r)))
      problems.push(`output lacks, in this order: ${fragments.map((f) => JSON.stringify(f)).join(' … ')}`);
  }
  for (const event of command.events)
    if (!result.output.includes(event)) problems.push(`output names no ${event}`);
  for (const line of command.lines)
    if (!inOrder(result.output, perRun(rewrite(line, t))))
      problems.push(`output lacks a line like "${line}" (values that differ per run aside)`);
  return problems;
}

/**
 * docs/management-api.md: a registration answers 201, and 200 for an identical repeat. On a busy machine the
 * store's client repeats a write that timed out after landing, so a first registration may see the 200.
 */
function sameRegistration(command: Command, result: Result): boolean {
  return (
    command.status === 201 &&
    result.status === 200 &&
    /-X POST \S+\/v1\/transactions\s/.test(command.text.replace(/\\\n/g, ' '))
  );
}

/**
 * How long one command may run: a scenario or a wait loop the docs bound themselves (`until … || [ $SECONDS
 * -ge $end ]`, up to 60 s) gets room beyond its own bound, so on a loaded machine it is the docs' bound that
 * decides and its failure names what did not happen.
 */
export function commandTimeoutMs(command: string): number {
  if (isSim(command)) return 120_000;
  return /\bsleep\b/.test(command) ? 90_000 : 30_000;
}

/** Runs a command in the shell; a read is repeated until its promise holds or `settleMs` has passed. */
export async function check(shell: Shell, command: Command, t: Target, settleMs: number): Promise<void> {
  const text = rewrite(command.text, t);
  const deadline = Date.now() + settleMs;
  for (;;) {
    const result = await shell.run(text, commandTimeoutMs(command.text));
    const problems = broken(command, result, t);
    if (!problems.length) return;
    if (!isRead(command.text) || Date.now() > deadline)
      throw new Error(
        `line ${command.line}: ${command.text}\n  ran: ${text}\n  ${problems.join('\n  ')}\n  output:\n${result.output}`,
      );
    await new Promise((r) => setTimeout(r, 300));
  }
}

export async function eventually(what: () => string | undefined, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const problem = what();
    if (problem === undefined) return;
    if (Date.now() > deadline) throw new Error(problem);
    await new Promise((r) => setTimeout(r, 200));
  }
}
