import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as real from '@aws-sdk/middleware-endpoint-discovery';
import { describe, expect, it } from 'vitest';
import * as shim from '../../../infra/lambda-shims/no-endpoint-discovery';

/*
 * The Lambda bundles replace the SDK's endpoint-discovery middleware with a shim (infra/bundling.ts
 * alias): justified only while no command of the clients we bundle installs the discovery plugin, and
 * only if every name the SDK imports from the module still resolves.
 */

const require = createRequire(import.meta.url);

/** The dist-es files of an SDK client, as esbuild bundles them (mainFields: module). */
function clientFiles(pkg: string): string[] {
  const root = join(dirname(require.resolve(`${pkg}/package.json`)), 'dist-es');
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.js'))
    .map((f) => readFileSync(join(root, f), 'utf8'));
}

describe('no-endpoint-discovery shim', () => {
  it('exports every name the real module does', () => {
    // Loaded as CommonJS here: `default` (and 'module.exports') are the interop's, not the module's.
    const names = Object.keys(real).filter((name) => name !== 'default' && name !== 'module.exports');
    expect(Object.keys(shim)).toEqual(expect.arrayContaining(names));
  });

  it('stands in for a module no command of the bundled clients uses', () => {
    for (const pkg of [
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/client-sqs',
      '@aws-sdk/client-secrets-manager',
      '@aws-sdk/client-eventbridge',
    ]) {
      for (const text of clientFiles(pkg)) expect(text).not.toMatch(/getEndpointDiscovery\w*Plugin/);
    }
  });

  it('resolves the client config with discovery off, and fails loudly if a plugin is ever asked for', async () => {
    const config = shim.resolveEndpointDiscoveryConfig(
      { region: 'eu-west-1' },
      { endpointDiscoveryCommandCtor: 'X' },
    );
    expect(config).toMatchObject({ region: 'eu-west-1', endpointDiscoveryCommandCtor: 'X' });
    expect(await config.endpointDiscoveryEnabled()).toBe(false);
    expect(shim.NODE_ENDPOINT_DISCOVERY_CONFIG_OPTIONS.environmentVariableSelector()).toBeUndefined();
    expect(() => shim.getEndpointDiscoveryPlugin()).toThrow(/remove the alias/);
  });
});
