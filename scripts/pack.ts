/**
 * npm pack's hooks (package.json `prepack` and `postpack`).
 *
 *   prepack    builds dist/ (scripts/prebuild-assets.ts), then puts the package README
 *              (docs/package-readme.md: the construct, for someone who installed it) where the repository
 *              README is: npm always packs the root README.md, and the repository's is about `npm start`
 *   postpack   puts the repository README back and removes dist/
 *
 * The repository README waits in .relay-pack/ meanwhile; a pack that died before postpack is mended by
 * the next prepack, or by `npx tsx scripts/pack.ts postpack`.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../infra/bundling';
import { parseCli } from './cli';

const USAGE = `Usage: npx tsx scripts/pack.ts prepack|postpack   (npm pack runs them)

prepack: builds dist/ (scripts/prebuild-assets.ts) and puts docs/package-readme.md in place of README.md
for the tarball. postpack: puts the repository README.md back and removes dist/ (docs/construct.md).`;
const { positionals } = parseCli(USAGE, { options: {}, allowPositionals: true });

const README = join(PROJECT_ROOT, 'README.md');
const PACKAGE_README = join(PROJECT_ROOT, 'docs', 'package-readme.md');
const SAVED = join(PROJECT_ROOT, '.relay-pack');
const SAVED_README = join(SAVED, 'README.md');

/** The repository README back in place, if a pack had set it aside. */
function restoreReadme(): void {
  if (!existsSync(SAVED_README)) return;
  copyFileSync(SAVED_README, README);
  rmSync(SAVED, { recursive: true, force: true });
}

const step = positionals[0];
if (step === 'prepack') {
  restoreReadme();
  const built = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(PROJECT_ROOT, 'scripts', 'prebuild-assets.ts')],
    { cwd: PROJECT_ROOT, stdio: 'inherit' },
  );
  if (built.status !== 0) process.exit(built.status ?? 1);
  mkdirSync(SAVED, { recursive: true });
  copyFileSync(README, SAVED_README);
  copyFileSync(PACKAGE_README, README);
} else if (step === 'postpack') {
  restoreReadme();
  rmSync(join(PROJECT_ROOT, 'dist'), { recursive: true, force: true });
} else {
  process.stderr.write(
    `✖ prepack or postpack (got ${step === undefined ? 'nothing' : `"${step}"`})\n${USAGE}\n`,
  );
  process.exit(2);
}
