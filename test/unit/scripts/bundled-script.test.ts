/**
 * A bundle stands for a package.json script only when the script is nothing but tsx running one file
 * (test/helpers/bundled-script.ts): anything else would let the tests' stand-in drift from what users run.
 */
import { describe, expect, it } from 'vitest';
import { entryOf, ScriptNotBundlableError } from '../../helpers/bundled-script';

describe('the entry point a bundle stands in for', () => {
  it('is the file of a script that is exactly `node --import tsx <file>` or `tsx <file>`', () => {
    // Act, Assess: package.json's own scripts of both forms.
    expect(entryOf('sim')).toBe('scripts/sim.ts');
    expect(entryOf('cost')).toBe('scripts/cost.ts');
  });

  it.each([
    ['an argument', 'tsx scripts/pack.ts prepack'],
    ['a node flag', 'node --import tsx --inspect scripts/sim.ts'],
    ['a second command', 'tsx scripts/a.ts && tsx scripts/b.ts'],
    ['an environment variable', 'CDK_VALIDATION=false tsx scripts/cost.ts'],
    ['plain node', 'node scripts/saturate.mjs'],
  ])('is refused, naming the script, for a script with %s', (_, script) => {
    // Act, Assess
    expect(() => entryOf('odd', { odd: script })).toThrow(ScriptNotBundlableError);
    expect(() => entryOf('odd', { odd: script })).toThrow(`package.json script "odd" is "${script}"`);
  });

  it('is refused for a script package.json does not have', () => {
    expect(() => entryOf('no-such-script')).toThrow('package.json script "no-such-script" is missing');
  });
});
