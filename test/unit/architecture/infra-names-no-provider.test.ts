import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROVIDER_INFRA, PROVIDERS } from '../../../shared/providers/registry';

const ROOT = join(import.meta.dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Words of display names that name no one ("Airtel Money" is Airtel, not money). */
const GENERIC_WORDS = new Set(['money', 'mobile']);

/**
 * Every way the code names a provider: its id, its display name and each of its words ("MTN",
 * "Safaricom"), and the short name its texts use.
 */
function providerNamePattern(): RegExp {
  const names = [
    ...PROVIDERS.flatMap((provider) => [
      provider.id,
      provider.displayName,
      ...provider.displayName.split(/\s+/).filter((word) => !GENERIC_WORDS.has(word.toLowerCase())),
    ]),
    ...PROVIDER_INFRA.map((declaration) => declaration.name),
  ];
  return new RegExp(`\\b(${[...new Set(names)].map(escape).join('|')})\\b`, 'i');
}

describe('infra names no provider', () => {
  it('leaves every provider name to the providers’ declarations, comments and texts included', () => {
    // Prepare
    const pattern = providerNamePattern();

    // Act
    const naming = sourceFiles(join(ROOT, 'infra')).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          pattern.test(line) ? [`${relative(ROOT, file)}:${index + 1}: ${line.trim()}`] : [],
        ),
    );

    // Assess
    expect(naming, 'take the name from the provider’s infra declaration (infra/relay/providers.ts)').toEqual(
      [],
    );
  });

  it('recognises a provider named in any of its forms', () => {
    // Prepare
    const pattern = providerNamePattern();

    // Act
    const found = ['momo', 'Safaricom Daraja', 'Airtel', 'MoMo does not retry', 'MTN', 'Safaricom IPs'].map(
      (text) => pattern.test(text),
    );

    // Assess
    expect(found).toEqual([true, true, true, true, true, true]);
    expect(pattern.test('a mobile-money provider callback')).toBe(false);
  });
});
