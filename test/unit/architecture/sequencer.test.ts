import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { laneOf } from '../../helpers/lanes';
import { STARTS_FIRST, startFirst } from '../../helpers/sequencer';

const ROOT = join(import.meta.dirname, '../../..');

interface File {
  path: string;
  project: string;
}
const order = (files: File[], first: string[]) =>
  startFirst(
    files,
    first,
    (file) => file.path,
    (file) => file.project,
  ).map((file) => `${file.project}:${file.path}`);

describe('the order test files start in', () => {
  it('starts the listed files first within their project, in the list order, the rest in the order given', () => {
    // Prepare
    const files = [
      { project: 'cdk', path: 'a' },
      { project: 'cdk', path: 'long' },
      { project: 'dynamodb', path: 'b' },
      { project: 'dynamodb', path: 'c' },
      { project: 'dynamodb', path: 'longer' },
      { project: 'dynamodb', path: 'longest' },
    ];
    // Act
    const sorted = order(files, ['longest', 'longer', 'long']);
    // Assess
    expect(sorted).toEqual([
      'cdk:long',
      'cdk:a',
      'dynamodb:longest',
      'dynamodb:longer',
      'dynamodb:b',
      'dynamodb:c',
    ]);
  });

  it('never moves a file across projects: a worker serves one project, and a switch replaces it', () => {
    // Prepare: the long file is the last of the run of "fast" files and a "fast-isolated" run follows.
    const files = [
      { project: 'fast', path: 'a' },
      { project: 'fast', path: 'long' },
      { project: 'fast-isolated', path: 'b' },
      { project: 'fast-isolated', path: 'long-isolated' },
    ];
    // Act
    const sorted = order(files, ['long-isolated', 'long']);
    // Assess
    expect(sorted).toEqual(['fast:long', 'fast:a', 'fast-isolated:long-isolated', 'fast-isolated:b']);
  });

  it('lists only test files that exist, each once, none of the fast lane (whose files are short)', () => {
    // Act
    const missing = STARTS_FIRST.filter((file) => !existsSync(join(ROOT, file)));
    // Assess
    expect(missing, 'remove or rename these in test/helpers/sequencer.ts').toEqual([]);
    expect(new Set(STARTS_FIRST).size).toBe(STARTS_FIRST.length);
    expect(STARTS_FIRST.filter((file) => laneOf(file) === 'fast')).toEqual([]);
  });
});
