/**
 * `npm ci` on a supported Node.js must install without an engine warning: a new user reads
 * "npm warn EBADENGINE Unsupported engine" as "this project does not run here" (it printed once for
 * cookie@2, which wants Node 22, through fauxqs → fastify → light-my-request: package.json's `overrides`
 * pins light-my-request to the last release on cookie 1). The Node.js versions package.json promises are
 * those every locked package supports.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const read = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));

interface Locked {
  engines?: { node?: string } | string[];
  optional?: boolean;
  hasInstallScript?: boolean;
}

/** Locked packages whose Node.js range leaves out a version `promised` includes. */
function outside(promised: string, packages: Record<string, Locked>): string[] {
  return Object.entries(packages).flatMap(([path, entry]) => {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    // The root entry is the project itself; an optional package npm skips where it does not run.
    if (path === '' || range === undefined || entry.optional) return [];
    return semver.subset(promised, range) ? [] : [`${path} wants node ${range}`];
  });
}

describe('the Node.js versions package.json promises', () => {
  it('are supported by every package in package-lock.json, so npm ci prints no engine warning', () => {
    // Prepare
    const promised = read('package.json').engines.node as string;
    // Act
    const unsupported = outside(promised, read('package-lock.json').packages);
    // Assess
    expect(unsupported).toEqual([]);
  });

  it('include the Node.js this suite runs on', () => {
    expect(semver.satisfies(process.versions.node, read('package.json').engines.node)).toBe(true);
  });

  it('are checked against each package: one that wants a newer Node.js is named', () => {
    // Act
    const unsupported = outside('^20.19.0 || >=22', {
      '': { engines: { node: '>=24' } },
      'node_modules/a': { engines: { node: '>=18' } },
      'node_modules/b/node_modules/cookie': { engines: { node: '>=22' } },
      'node_modules/c': { engines: { node: '>=22' }, optional: true },
      'node_modules/d': {},
    });
    // Assess
    expect(unsupported).toEqual(['node_modules/b/node_modules/cookie wants node >=22']);
  });
});

describe('install scripts of the locked packages', () => {
  it('are each approved in package.json allowScripts, so npm ci lists none unreviewed (npm 12 blocks them)', () => {
    // Prepare
    const allowed = (read('package.json').allowScripts ?? {}) as Record<string, boolean>;
    const packages = read('package-lock.json').packages as Record<string, Locked>;
    // Act
    const unreviewed = Object.entries(packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => path.replace(/^.*node_modules\//, ''))
      .filter((name) => allowed[name] === undefined);
    // Assess
    expect(unreviewed).toEqual([]);
  });
});
