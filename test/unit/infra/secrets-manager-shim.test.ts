import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as shim from '../../../infra/lambda-shims/secrets-manager-client';

/*
 * The Lambda bundles replace `@aws-sdk/client-secrets-manager` with a shim that exports the client and the
 * commands the relay sends, from the package's own ESM build (infra/bundling.ts alias): every value the
 * relay's code imports from the package must be one of them, or the bundles do not build.
 */

const ROOT = join(import.meta.dirname, '../../..');

/** The names imported (as values) from the package by the code the Lambda bundles hold. */
function importedNames(): string[] {
  const names = new Set<string>();
  for (const dir of ['shared', 'functions']) {
    for (const file of readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue;
      const text = readFileSync(join(ROOT, dir, file), 'utf8');
      for (const m of text.matchAll(
        /import\s+(type\s+)?\{([^}]*)\}\s+from\s+'@aws-sdk\/client-secrets-manager'/g,
      )) {
        if (m[1]) continue;
        for (const part of m[2]!.split(',')) {
          const name = part.trim();
          if (name && !name.startsWith('type ')) names.add(name.split(/\s+as\s+/)[0]!);
        }
      }
    }
  }
  return [...names].sort();
}

describe('secrets-manager-client shim', () => {
  it('exports every value the relay imports from @aws-sdk/client-secrets-manager', () => {
    const names = importedNames();
    expect(names).toContain('GetSecretValueCommand');
    for (const name of names) expect(typeof (shim as Record<string, unknown>)[name], name).toBe('function');
  });
});
