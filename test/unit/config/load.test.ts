import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  accountsWithoutPathSecret,
  loadConfig,
  parseConfig,
  pathSecretWarnings,
} from '../../../shared/config/load';
import { webhookSecretSchema } from '../../../shared/config/schema';
import { callbackConfigShape } from '../../../shared/config/callback-config';
import { parseCallbackConfig } from '../../../shared/config/loader';
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

async function asyncErrorOf(run: () => Promise<unknown>): Promise<string> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as Error).message;
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

  it('refuses a named token called as the shared token is, which would pass for it', () => {
    // Act
    const message = errorOf(() =>
      parseConfig({
        management: {
          bearerToken: 'a-long-enough-token',
          tokens: [{ name: 'bearer-token', role: 'admin', token: 'another-long-enough-token' }],
        },
      }),
    );
    // Assess
    expect(message).toContain('management.tokens: "bearer-token" is the shared bearer token\'s name');
  });

  it('names an unknown top-level key', () => {
    expect(errorOf(() => parseConfig({ ...minimal, publicBaseURL: 'x' }))).toMatch(/publicBaseURL/);
  });

  it('lists an account problem beside a top-level one, not one fix later', () => {
    // Act: a misspelt top-level key and a bad account setting in one file.
    const message = errorOf(() =>
      parseConfig({ ...minimal, acounts: {}, accounts: { momo: { demo: { currency: 'EURO' } } } }),
    );
    // Assess
    expect(message).toMatch(/Unrecognized key: "acounts"/);
    expect(message).toContain('accounts.momo.demo.currency');
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

  it('rejects an ack budget for a provider that does not exist, so a misspelt one cannot go unnoticed', () => {
    expect(
      errorOf(() => parseConfig({ ...minimal, ackBudgets: { mtn: { storeMs: 1000, ackMs: 1500 } } })),
    ).toContain('ackBudgets.mtn: unknown provider');
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

  it('reads inline JSON first and names the source of a syntax error', async () => {
    expect(await asyncErrorOf(() => loadConfig({ RELAY_CONFIG_JSON: '{oops' }))).toContain(
      'RELAY_CONFIG_JSON: not valid JSON',
    );
  });

  it('reads the file named by RELAY_CONFIG and says which file was wrong', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'relay-config-'));
    const file = join(dir, 'relay.json');
    writeFileSync(file, JSON.stringify({ ...minimal, limits: { maxBodyBytes: -1 } }));
    const message = await asyncErrorOf(() => loadConfig({ RELAY_CONFIG: file }));
    expect(message).toContain('limits.maxBodyBytes');
    expect(message).toContain(file);
    const missing = await asyncErrorOf(() => loadConfig({ RELAY_CONFIG: join(dir, 'missing.json') }));
    // The file, not a variable the caller may never have set (npm start -- --config names it too).
    expect(missing).toContain(`cannot read the config file ${join(dir, 'missing.json')}`);
    expect(missing).not.toMatch(/^RELAY_CONFIG/);
  });

  it('loads asynchronously: a promise of the parsed config, the file source before the fallback', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'relay-config-'));
    const file = join(dir, 'relay.json');
    writeFileSync(file, JSON.stringify({ ...minimal, publicBaseUrl: 'https://relay.example.org' }));
    const pending = loadConfig({ RELAY_CONFIG: file }, join(dir, 'fallback-never-read.json'));
    expect(pending).toBeInstanceOf(Promise);
    expect((await pending).publicBaseUrl).toBe('https://relay.example.org');
    const inline = await loadConfig({ RELAY_CONFIG_JSON: JSON.stringify(minimal), RELAY_CONFIG: file });
    expect(inline.publicBaseUrl).toBe('http://localhost:3000');
    await expect(loadConfig({})).rejects.toThrow(/No config/);
  });
});

describe('accounts without a path secret', () => {
  const config = (accounts: Record<string, unknown>) => parseConfig({ ...minimal, accounts });
  const secret = 'a-long-random-secret-0123';

  it('lists the MoMo and Daraja accounts without a path secret, naming the key', () => {
    const found = accountsWithoutPathSecret(
      config({
        momo: { open: {}, closed: { pathSecret: secret } },
        daraja: { open: { shortCode: '600638' } },
        airtel: { open: { callbackKey: 'an-airtel-callback-key', hashMode: 'enforce' } },
      }),
    );
    expect(found.map((a) => a.key).sort()).toEqual([
      'accounts.daraja.open.pathSecret',
      'accounts.momo.open.pathSecret',
    ]);
    expect(found.every((a) => a.allowNoPathSecret === undefined)).toBe(true);
  });

  it('keeps the opt-out reason on the account, out of the provider settings', () => {
    const parsed = config({ momo: { demo: { allowNoPathSecret: 'behind a private VPN link' } } });
    expect(parsed.accounts.get('momo/demo')).toMatchObject({
      allowNoPathSecret: 'behind a private VPN link',
    });
    expect(parsed.accounts.get('momo/demo')?.settings).not.toHaveProperty('allowNoPathSecret');
    expect(accountsWithoutPathSecret(parsed)).toEqual([
      expect.objectContaining({
        key: 'accounts.momo.demo.pathSecret',
        allowNoPathSecret: 'behind a private VPN link',
      }),
    ]);
  });

  it('refuses an opt-out without a real reason, or next to a path secret', () => {
    expect(errorOf(() => config({ momo: { demo: { allowNoPathSecret: 'because' } } }))).toContain(
      'accounts.momo.demo.allowNoPathSecret',
    );
    expect(
      errorOf(() =>
        config({ momo: { demo: { pathSecret: secret, allowNoPathSecret: 'behind a private VPN' } } }),
      ),
    ).toContain('accounts.momo.demo.allowNoPathSecret');
  });

  it('builds one npm start warning per account without a path secret that did not opt out', () => {
    const lines = pathSecretWarnings(
      config({
        momo: {
          demo: {},
          private: { allowNoPathSecret: 'behind a private VPN link' },
          safe: { pathSecret: secret },
        },
        daraja: { demo: { shortCode: '600638' } },
        airtel: { demo: { callbackKey: 'an-airtel-callback-key', hashMode: 'enforce' } },
      }),
    );
    expect(lines).toHaveLength(2);
    const momo = lines.find((l) => l.includes('momo/demo'));
    expect(momo).toMatch(
      /^WARNING momo\/demo has no pathSecret: anyone who knows a reference can post a callback/,
    );
    expect(momo).toContain('accounts.momo.demo.pathSecret');
    expect(momo).toContain('accounts.momo.demo.allowNoPathSecret');
    expect(lines.some((l) => l.startsWith('WARNING daraja/demo has no pathSecret'))).toBe(true);
    expect(pathSecretWarnings(config({ momo: { safe: { pathSecret: secret } } }))).toEqual([]);
  });
});

/*
 * The callback function and the buffer consumer parse only the config sections the callback path reads
 * (shared/config/callback-config.ts), so their bundles leave out the other sections' schemas. What they
 * read must be what the whole config's parse gives; a malformed section they read still fails with its key.
 */

const example = JSON.parse(readFileSync(join(__dirname, '../../../infra/example-config.json'), 'utf8'));

describe('the callback path config', () => {
  it('holds what the whole config parse gives for the sections it reads, the defaults included', () => {
    // Arrange
    const input = { ...example, ackBudgets: { momo: { storeMs: 1000, ackMs: 2000 } } };
    // Act
    const whole = parseConfig(input, { secretsUnresolved: true });
    const callback = parseCallbackConfig(input, { secretsUnresolved: true });
    // Assess
    const sections = Object.keys(callbackConfigShape) as (keyof typeof callbackConfigShape)[];
    expect(Object.keys(callback).sort()).toEqual([...sections].sort());
    for (const section of sections) expect(callback[section]).toEqual(whole[section]);
    expect(callback.accounts.size).toBeGreaterThan(0);
  });

  it('names the bad key of a malformed section it reads, as the whole config parse does', () => {
    // Arrange
    const input = { ...example, limits: { maxBodyBytes: 'big' }, edge: { mode: 'cloudfront' } };
    // Act
    const message = errorOf(() => parseCallbackConfig(input, { secretsUnresolved: true }));
    // Assess
    expect(message).toMatch(/^Invalid relay config:/);
    expect(message).toContain('limits.maxBodyBytes');
    expect(message).toContain('edge.originVerifySecrets');
  });

  it("names the bad key inside an account, with its provider's settings schema", () => {
    // Arrange
    const input = { accounts: { momo: { demo: { pathSecret: 'short', currency: 'EURO' } } } };
    // Act
    const message = errorOf(() => parseCallbackConfig(input));
    // Assess
    expect(message).toContain('accounts.momo.demo.pathSecret: path secrets must be at least 16 characters');
    expect(message).toContain('accounts.momo.demo.currency');
  });

  it('leaves the sections it does not read to cdk synth, which validated them', () => {
    // Arrange: a destination of an unknown type, which the whole config refuses.
    const input = { ...example, destinations: { partner: { type: 'carrier-pigeon' } } };
    // Act
    const callback = parseCallbackConfig(input, { secretsUnresolved: true });
    // Assess
    expect(errorOf(() => parseConfig(input, { secretsUnresolved: true }))).toContain(
      'destinations.partner.type',
    );
    expect(callback).not.toHaveProperty('destinations');
  });
});

describe('webhook signing secrets', () => {
  const bytes = (n: number) => Buffer.alloc(n, 7).toString('base64');
  it.each([
    ['unpadded base64 (25 bytes)', `whsec_${bytes(25).replace(/=+$/, '')}`],
    ['wrong padding', `whsec_${'A'.repeat(32)}==`],
    ['a length no base64 has', `whsec_${'A'.repeat(33)}`],
    ['more than 64 bytes', `whsec_${bytes(66)}`],
    ['fewer than 24 bytes', `whsec_${bytes(18)}`],
  ])(
    'refuses %s: strict receivers (the Python and Go libraries, the kit) could verify nothing',
    (_, secret) => {
      expect(webhookSecretSchema.safeParse(secret).success).toBe(false);
    },
  );

  it.each([24, 25, 32, 64])('takes the padded base64 of %i bytes, as openssl rand -base64 prints it', (n) => {
    expect(webhookSecretSchema.safeParse(`whsec_${bytes(n)}`).success).toBe(true);
  });
});
