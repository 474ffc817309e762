import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpWebhookSender } from '../../../shared/adapters/webhooks/http-sender';
import { timerScheduler } from '../../../shared/app/delivery/ports';
import { systemClock } from '../../../shared/app/ports';
import type { EventEnvelope } from '../../../shared/domain/event-envelope';
import { killChildren, runTs, waitFor } from '../../../test/helpers/child-process';
import { newSecret, succeeded } from './fixtures';
import { relayEngine } from './relay-engine';

const KIT = resolve(import.meta.dirname, '..');
const ROOT = resolve(KIT, '../..');
const ENTRY = join(KIT, 'src/index.ts');

/**
 * Express is a development dependency only (never the relay's or the kit's): should it be dropped, the
 * Express snippet's tests say they were skipped (`npm install --save-dev express@5 @types/express@5`).
 */
const EXPRESS = join(ROOT, 'node_modules/express/index.js');
const EXPRESS_TYPES = join(ROOT, 'node_modules/@types/express/index.d.ts');
const hasExpress = existsSync(EXPRESS) && existsSync(EXPRESS_TYPES);

/** The ```ts block after `<!-- kit-snippet: <name> -->` in the README. */
async function snippet(name: string): Promise<string> {
  const readme = await readFile(join(KIT, 'README.md'), 'utf8');
  const match = new RegExp(`<!-- kit-snippet: ${name} -->\\n\`\`\`ts\\n([\\s\\S]*?)\\n\`\`\``).exec(readme);
  if (!match) throw new Error(`README.md has no "${name}" snippet`);
  return match[1]!;
}

/** The snippet as a reader's file, the package name pointing at this repository's source. */
const runnable = (code: string) =>
  code
    .replaceAll("'mobile-money-relay-subscriber'", JSON.stringify(ENTRY))
    .replaceAll("from 'express'", `from ${JSON.stringify(EXPRESS)}`);

/**
 * The files parsed by one check of snippets, for the next: both checks read TypeScript's libraries,
 * @types/node and the kit's sources with the same target and resolution (tsc --build shares them the same
 * way); a file's key holds what its parse depends on.
 */
const parsed = new Map<string, ts.SourceFile | undefined>();

/** TypeScript's diagnostics of snippet files, strict, as a reader's editor would check them. */
function typeProblems(files: string[], options: ts.CompilerOptions): string[] {
  const compilerOptions: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules/@types')],
    baseUrl: ROOT,
    ...options,
  };
  const host = ts.createCompilerHost(compilerOptions);
  const parse = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, version, ...rest) => {
    const key = `${fileName}\0${typeof version === 'object' ? `${version.languageVersion}/${version.impliedNodeFormat}` : version}`;
    if (!parsed.has(key)) parsed.set(key, parse(fileName, version, ...rest));
    return parsed.get(key);
  };
  return ts
    .getPreEmitDiagnostics(ts.createProgram(files, compilerOptions, host))
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

let scratch: string | undefined;
afterEach(async () => {
  killChildren();
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** Polls an asynchronous condition (a safety net of a minute, not a speed check). */
async function until(condition: () => Promise<boolean>): Promise<void> {
  for (
    const deadline = Date.now() + 60_000;
    Date.now() < deadline;
    await new Promise((r) => setTimeout(r, 100))
  )
    if (await condition()) return;
  throw new Error('condition not met within a minute');
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/**
 * Runs a receiver snippet as a reader would (PORT, WEBHOOK_SECRETS) and has the relay's own engine deliver
 * to it: handled once, its replay a duplicate, a forged request 400.
 */
async function deliversOnceToReceiver(name: string): Promise<void> {
  // Prepare
  scratch = await mkdtemp(join(tmpdir(), 'kit-readme-'));
  const file = join(scratch, 'receiver.ts');
  await writeFile(file, runnable(await snippet(name)));
  const secret = newSecret();
  const port = await freePort();
  const receiver = runTs(file, [], { PORT: String(port), WEBHOOK_SECRETS: `${newSecret()},${secret}` });
  const url = `http://localhost:${port}/webhooks`;
  // Up once it answers; an unsigned POST is refused with 400.
  await until(() =>
    fetch(url, { method: 'POST' }).then(
      (r) => r.status === 400,
      () => false,
    ),
  );
  const { engine, log } = relayEngine(
    {
      url,
      signingSecrets: [secret],
      allowPrivateAddresses: true,
    },
    { sender: new HttpWebhookSender(), clock: systemClock, scheduler: timerScheduler },
  );

  // Act
  await engine.submit(succeeded as unknown as EventEnvelope);
  await engine.settled();
  await engine.replay(
    'partner',
    { correlationId: succeeded.metadata.correlationId },
    { dryRun: false, actor: 'test' },
  );
  // The replay may wait for the destination's rate (a timer settled() does not hold): await its attempt.
  await vi.waitFor(() => expect(log.attemptList).toHaveLength(2), { timeout: 10_000 });
  await engine.settled();
  const forged = await fetch(url, {
    method: 'POST',
    headers: {
      'webhook-id': 'x',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': 'v1,AAAA',
    },
    body: JSON.stringify(succeeded),
  });

  // Assess
  expect(log.attemptList.map((a) => [a.status, a.outcome])).toEqual([
    [204, 'delivered'],
    [204, 'delivered'],
  ]);
  expect(forged.status).toBe(400);
  await waitFor(() => receiver.output().includes('paid'), 60_000, receiver.output);
  expect(receiver.output().match(/^paid order-8841/gm)).toHaveLength(1);
}

describe('the README of the subscriber kit', () => {
  it('shows snippets of at most 20 lines that type-check as written, strict, against the package and @types/aws-lambda', async () => {
    // Prepare
    scratch = await mkdtemp(join(tmpdir(), 'kit-readme-'));
    const files = [join(scratch, 'receiver.ts'), join(scratch, 'lambda.ts')];
    await writeFile(files[0]!, await snippet('receiver'));
    await writeFile(files[1]!, await snippet('lambda'));

    // Act
    const problems = typeProblems(files, {
      paths: {
        'mobile-money-relay-subscriber': [ENTRY],
        'aws-lambda': [join(ROOT, 'node_modules/@types/aws-lambda/index.d.ts')],
      },
    });

    // Assess
    expect(problems).toEqual([]);
    for (const file of files)
      expect((await readFile(file, 'utf8')).split('\n').length).toBeLessThanOrEqual(20);
  });

  it("runs the receiver: the relay's delivery is handled once, its replay is a duplicate, a forged one gets 400", async () => {
    await deliversOnceToReceiver('receiver');
  });

  it('runs the Lambda: an EventBridge event is handled, the same event again is a duplicate', async () => {
    // Prepare
    scratch = await mkdtemp(join(tmpdir(), 'kit-readme-'));
    const file = join(scratch, 'lambda.ts');
    await writeFile(file, runnable(await snippet('lambda')));
    const { handler } = (await import(file)) as { handler: (event: unknown) => Promise<string> };
    const event = {
      version: '0',
      id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
      'detail-type': 'TransactionSucceeded',
      source: 'mobile-money.relay',
      account: '111122223333',
      time: succeeded.metadata.occurredAt,
      region: 'eu-west-1',
      resources: [],
      detail: succeeded,
    };

    // Act
    const outcomes = [await handler(event), await handler({ ...event, id: 'retried-by-eventbridge' })];

    // Assess
    expect(outcomes).toEqual(['handled', 'duplicate']);
  });
});

describe.skipIf(!hasExpress)(
  `the README's Express receiver${hasExpress ? '' : ' (skipped: express is not installed; npm install --save-dev express@5 @types/express@5)'}`,
  () => {
    it('type-checks as written, strict, in at most 20 lines', async () => {
      // Prepare
      scratch = await mkdtemp(join(tmpdir(), 'kit-readme-'));
      const file = join(scratch, 'express.ts');
      await writeFile(file, await snippet('express'));

      // Act
      const problems = typeProblems([file], {
        esModuleInterop: true,
        paths: { 'mobile-money-relay-subscriber': [ENTRY], express: [EXPRESS_TYPES] },
      });

      // Assess
      expect(problems).toEqual([]);
      expect((await readFile(file, 'utf8')).split('\n').length).toBeLessThanOrEqual(20);
    });

    it("runs: the relay's delivery is handled once, its replay is a duplicate, a forged one gets 400", async () => {
      await deliversOnceToReceiver('express');
    });
  },
);
