import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSecret, succeeded } from '../../packages/subscriber-kit/test/fixtures';

/**
 * The subscriber kit as a user gets it (packages/subscriber-kit/README.md): `npm pack` in its folder (its
 * prepack builds dist/), then a CommonJS project and an ES module project that install the tarball and
 * verify a request the specification's reference library signed. The kit has no dependencies, so the
 * install needs no registry (`--offline`); it runs once, in the CommonJS project, and the ES module project
 * gets a copy of its node_modules (what npm installs does not depend on the project's module type). Both
 * projects' typed files are checked in one TypeScript program (same options; TypeScript's default
 * libraries parsed once). Here rather than beside the kit's other tests: packing and installing is this
 * lane's work (test/helpers/lanes.ts).
 */
const run = promisify(execFile);
const KIT = resolve(import.meta.dirname, '../../packages/subscriber-kit');
const NAME = 'mobile-money-relay-subscriber';
const SENT_AT = new Date('2026-11-21T15:53:30.000Z');

let scratch: string;
let tarball: string;
let packed: { files: { path: string }[] };

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'kit-pack-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: KIT });
  packed = JSON.parse(stdout)[0];
  tarball = join(scratch, (packed as unknown as { filename: string }).filename);
  // The signed request both projects verify, as files: the projects run in processes of their own.
  const secret = newSecret();
  const body = JSON.stringify(succeeded);
  const headers = {
    'webhook-id': succeeded.metadata.id,
    'webhook-timestamp': String(SENT_AT.getTime() / 1000),
    'webhook-signature': new Webhook(secret).sign(succeeded.metadata.id, SENT_AT, body),
  };
  await writeFile(join(scratch, 'request.json'), JSON.stringify({ headers, body, secret, sentAt: SENT_AT }));
  await createProjects();
}, 180_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const KINDS = ['commonjs', 'module'] as const;
type Kind = (typeof KINDS)[number];
/** Each project's typed file: `import` from an ES module, `require` from a CommonJS one (node16 resolution). */
const TYPED_FILE: Record<Kind, string> = { commonjs: 'typed.cts', module: 'typed.mts' };
const projectDir = (kind: Kind) => join(scratch, kind);

/** The two consumer projects: the tarball installed in the CommonJS one, its node_modules copied to the other. */
async function createProjects(): Promise<void> {
  for (const kind of KINDS) {
    await mkdir(projectDir(kind));
    await writeFile(
      join(projectDir(kind), 'package.json'),
      JSON.stringify({ name: `consumer-${kind}`, private: true, type: kind }),
    );
    await writeFile(join(projectDir(kind), TYPED_FILE[kind]), TYPED);
  }
  await run('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: projectDir('commonjs'),
  });
  await cp(join(projectDir('commonjs'), 'node_modules'), join(projectDir('module'), 'node_modules'), {
    recursive: true,
  });
}

/** The consumer's program: verify the request, then hand the event to the idempotent consumer twice. */
const program = (load: string) => `${load}
const request = JSON.parse(readFileSync(${JSON.stringify('../request.json')}, 'utf8'));
const event = kit.verify(request.headers, request.body, request.secret, { now: () => new Date(request.sentAt) });
const consumer = new kit.IdempotentConsumer();
const outcomes = [];
for (const delivery of [event, event]) outcomes.push((await consumer.consume(delivery, () => 'ok')).outcome);
let refused = 'accepted';
try { kit.verify(request.headers, request.body + ' ', request.secret, { now: () => new Date(request.sentAt) }); }
catch (error) { refused = error instanceof kit.WebhookSignatureError ? error.name : String(error); }
console.log(JSON.stringify({ id: event.metadata.id, outcomes, refused, types: kit.RELAY_EVENT_TYPES.length }));
`;

let checked: Record<Kind, string[]> | undefined;

/**
 * The diagnostics of a project's typed file, as TypeScript's node16 resolution sees the installed package:
 * those of the project's own files (its installed declarations included) and those of no file. One program
 * checks both projects' files; each file resolves the package from its own project.
 */
function typeErrors(kind: Kind): string[] {
  checked ??= (() => {
    const program = ts.createProgram(
      KINDS.map((k) => join(projectDir(k), TYPED_FILE[k])),
      {
        strict: true,
        noEmit: true,
        module: ts.ModuleKind.Node16,
        moduleResolution: ts.ModuleResolutionKind.Node16,
        target: ts.ScriptTarget.ES2022,
        types: [],
      },
    );
    const diagnostics = ts.getPreEmitDiagnostics(program);
    const inProject = (k: Kind, file?: ts.SourceFile) => file?.fileName.startsWith(`${projectDir(k)}/`);
    const of = (k: Kind) =>
      diagnostics
        .filter((d) => !KINDS.some((other) => other !== k && inProject(other, d.file)))
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    return { commonjs: of('commonjs'), module: of('module') };
  })();
  return checked[kind];
}

const TYPED = `import { verify, isRelayEvent, type RelayEvent } from '${NAME}';
const event = verify<RelayEvent>({ 'webhook-id': 'x' }, '{}', 'whsec_AAAA');
export const amount = isRelayEvent(event, 'TransactionSucceeded') ? event.data.amount : null;
`;

describe('the subscriber kit, packed and installed', () => {
  it('ships its build, README and LICENSE, and depends on nothing', async () => {
    // Assess
    const manifest = JSON.parse(await readFile(join(KIT, 'package.json'), 'utf8'));
    const files = packed.files.map((f) => f.path).sort();
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'dist/esm/index.js',
        'dist/cjs/index.cjs',
      ]),
    );
    expect(
      files.filter((f) => !f.startsWith('dist/') && !['LICENSE', 'README.md', 'package.json'].includes(f)),
    ).toEqual([]);
    expect(files).toContain('dist/esm/index.d.ts');
    expect(files).toContain('dist/cjs/index.d.cts');
    expect(manifest).toMatchObject({ name: NAME, license: 'Apache-2.0' });
    expect(manifest.private).toBeUndefined();
    expect(manifest.dependencies).toBeUndefined();
  });

  it('verifies a reference-signed request from a CommonJS project (require), types included', async () => {
    // Prepare
    const dir = projectDir('commonjs');
    await writeFile(
      join(dir, 'main.js'),
      `(async () => {${program(`const kit = require('${NAME}'); const { readFileSync } = require('node:fs');`)}})();`,
    );

    // Act
    const { stdout } = await run(process.execPath, ['main.js'], { cwd: dir });

    // Assess
    expect(JSON.parse(stdout)).toEqual({
      id: succeeded.metadata.id,
      outcomes: ['handled', 'duplicate'],
      refused: 'WebhookSignatureError',
      types: expect.any(Number),
    });
    expect(typeErrors('commonjs')).toEqual([]);
  });

  it('verifies a reference-signed request from an ES module project (import), types included', async () => {
    // Prepare
    const dir = projectDir('module');
    await writeFile(
      join(dir, 'main.js'),
      program(`import * as kit from '${NAME}'; import { readFileSync } from 'node:fs';`),
    );

    // Act
    const { stdout } = await run(process.execPath, ['main.js'], { cwd: dir });

    // Assess
    expect(JSON.parse(stdout)).toMatchObject({
      id: succeeded.metadata.id,
      outcomes: ['handled', 'duplicate'],
      refused: 'WebhookSignatureError',
    });
    expect(typeErrors('module')).toEqual([]);
  });
});
