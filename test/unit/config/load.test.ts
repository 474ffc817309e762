import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../../shared/config/load';
import { ConfigError } from '../../../shared/domain/errors';

const minimal = { management: { bearerToken: 'a-long-enough-token' } };

function errorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('relay config', () => {
  it('fills defaults for everything optional', () => {
    const config = parseConfig({ ...minimal, accounts: { momo: { demo: {} } } });
    expect(config.publicBaseUrl).toBe('http://localhost:3000');
    expect(config.limits.maxBodyBytes).toBe(262144);
    expect(config.events.source).toBe('mobile-money.relay');
    expect(config.accounts.get('momo/demo')).toMatchObject({
      provider: 'momo',
      id: 'demo',
      pathSecret: undefined,
      settings: { targetEnvironment: 'sandbox' },
    });
  });

  it('names the bad key of a wrongly typed core setting', () => {
    expect(errorOf(() => parseConfig({ ...minimal, limits: { maxBodyBytes: 'big' } }))).toContain(
      'limits.maxBodyBytes',
    );
  });

  it('names an unknown top-level key', () => {
    expect(errorOf(() => parseConfig({ ...minimal, publicBaseURL: 'x' }))).toMatch(/publicBaseURL/);
  });

  it('names the bad key inside a provider account', () => {
    const message = errorOf(() =>
      parseConfig({ ...minimal, accounts: { momo: { demo: { currency: 'EURO' } } } }),
    );
    expect(message).toContain('accounts.momo.demo.currency');
  });

  it('rejects an unknown provider by its key', () => {
    expect(errorOf(() => parseConfig({ ...minimal, accounts: { mpasa: { demo: {} } } }))).toContain(
      'accounts.mpasa: unknown provider',
    );
  });

  it('rejects a short path secret by its key', () => {
    expect(
      errorOf(() => parseConfig({ ...minimal, accounts: { momo: { demo: { pathSecret: 'short' } } } })),
    ).toContain('accounts.momo.demo.pathSecret');
  });

  it('rejects a public base URL that breaks the Daraja URL rules', () => {
    const message = errorOf(() =>
      parseConfig({ ...minimal, publicBaseUrl: 'https://mpesa-callbacks.example.com' }),
    );
    expect(message).toContain('publicBaseUrl');
    expect(message).toContain('mpesa');
  });

  it('rejects an account whose generated callback URLs would break the URL rules', () => {
    const message = errorOf(() => parseConfig({ ...minimal, accounts: { momo: { 'sql-shop': {} } } }));
    expect(message).toContain('accounts.momo.sql-shop');
  });

  it('requires a bearer token when the management API uses bearer auth', () => {
    expect(errorOf(() => parseConfig({}))).toContain('management.bearerToken');
    expect(() => parseConfig({ management: { auth: 'iam' } })).not.toThrow();
  });

  it('reads inline JSON first and names the source of a syntax error', () => {
    expect(errorOf(() => loadConfig({ RELAY_CONFIG_JSON: '{oops' }))).toContain(
      'RELAY_CONFIG_JSON: not valid JSON',
    );
  });

  it('reads the file named by RELAY_CONFIG and says which file was wrong', () => {
    const dir = mkdtempSync(join(tmpdir(), 'relay-config-'));
    const file = join(dir, 'relay.json');
    writeFileSync(file, JSON.stringify({ ...minimal, limits: { maxBodyBytes: -1 } }));
    const message = errorOf(() => loadConfig({ RELAY_CONFIG: file }));
    expect(message).toContain('limits.maxBodyBytes');
    expect(message).toContain(file);
    expect(errorOf(() => loadConfig({ RELAY_CONFIG: join(dir, 'missing.json') }))).toContain('cannot read');
  });
});
