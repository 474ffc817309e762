import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it, vi } from 'vitest';
import { SecretsManagerSecretReader } from '../../../shared/adapters/secrets/secrets-manager';
import {
  accountSecretId,
  accountsWithoutPathSecret,
  loadConfig,
  mergeAccountSecrets,
  parseConfig,
  refreshingConfig,
} from '../../../shared/config/load';
import type { RelayConfig } from '../../../shared/config/schema';
import { configuredSecrets, secretScrubber } from '../../../shared/config/secrets';
import { ConfigError } from '../../../shared/domain/errors';

const MOMO_SECRET_ID = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:relay/momo-demo-AbCdEf';
const DARAJA_SECRET_ID = 'relay/daraja-ke';
const PATH_SECRET = 'c0ffee0123456789abcdef';
const CONSUMER_SECRET = 'daraja-consumer-secret-value';

/** The config as written in the cloud: secrets live in Secrets Manager, named by secretId. */
function cloudConfig() {
  return {
    management: { auth: 'iam' },
    accounts: {
      momo: { demo: { currency: 'EUR', secretId: MOMO_SECRET_ID } },
      daraja: {
        ke: {
          shortCode: '600638',
          currency: 'KES',
          secretId: DARAJA_SECRET_ID,
          api: { baseUrl: 'https://sandbox.safaricom.co.ke', stkQueriesPerMinute: 5 },
          c2b: { partner: { url: 'https://partner.example.org/c2b-decisions' } },
        },
      },
      airtel: { ug: { callbackKey: 'airtel-inline-callback-key', country: 'UG', currency: 'UGX' } },
    },
  };
}

const SECRETS: Record<string, string> = {
  [MOMO_SECRET_ID]: JSON.stringify({ pathSecret: PATH_SECRET }),
  [DARAJA_SECRET_ID]: JSON.stringify({
    pathSecret: 'daraja-path-secret-0123',
    api: { consumerKey: 'daraja-consumer-key-value', consumerSecret: CONSUMER_SECRET },
    c2b: { partner: { bearerToken: 'partner-token-for-c2b-decisions' } },
  }),
};

const fromMap =
  (secrets: Record<string, string>) =>
  async (secretId: string): Promise<string> => {
    const value = secrets[secretId];
    if (value === undefined) throw new Error(`no such secret ${secretId}`);
    return value;
  };

const load = (config: unknown, readSecret = fromMap(SECRETS)) =>
  loadConfig({ RELAY_CONFIG_JSON: JSON.stringify(config) }, undefined, { readSecret });

async function loadError(config: unknown, readSecret = fromMap(SECRETS)): Promise<string> {
  const error = await load(config, readSecret).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as Error).message;
}

describe('accounts with secretId: loading (cold start)', () => {
  it('deep-merges each secret into its account before validation', async () => {
    const config = await load(cloudConfig());
    const momo = config.accounts.get('momo/demo')!;
    expect(momo.pathSecret).toBe(PATH_SECRET);
    expect(accountSecretId(momo)).toBe(MOMO_SECRET_ID);
    const daraja = config.accounts.get('daraja/ke')!;
    expect(daraja.pathSecret).toBe('daraja-path-secret-0123');
    // Merged member by member: the config's api settings stay, the secret adds the credentials.
    expect(daraja.settings.api).toMatchObject({
      baseUrl: 'https://sandbox.safaricom.co.ke',
      stkQueriesPerMinute: 5,
      consumerKey: 'daraja-consumer-key-value',
      consumerSecret: CONSUMER_SECRET,
    });
    expect(daraja.settings.c2b).toMatchObject({
      partner: { bearerToken: 'partner-token-for-c2b-decisions' },
    });
    expect(config.accounts.get('airtel/ug')!.settings.callbackKey).toBe('airtel-inline-callback-key');
  });

  it('lets the secret win over a value written in the config', async () => {
    const config = cloudConfig();
    Object.assign(config.accounts.momo.demo, { pathSecret: 'old-inline-path-secret-00' });
    expect((await load(config)).accounts.get('momo/demo')!.pathSecret).toBe(PATH_SECRET);
  });

  it('registers every value from a secret with the scrubber, whatever its key', async () => {
    const config = cloudConfig();
    const secrets = {
      ...SECRETS,
      [MOMO_SECRET_ID]: JSON.stringify({
        pathSecret: PATH_SECRET,
        targetEnvironment: 'mtn-internal-env',
      }),
    };
    const loaded = await load(config, fromMap(secrets));
    const listed = configuredSecrets(loaded);
    expect(listed).toEqual(
      expect.arrayContaining([
        PATH_SECRET,
        'mtn-internal-env',
        CONSUMER_SECRET,
        'daraja-consumer-key-value',
        'partner-token-for-c2b-decisions',
        'airtel-inline-callback-key',
      ]),
    );
    const scrub = secretScrubber(loaded);
    expect(scrub(`token ${CONSUMER_SECRET} path /v1/momo/demo/${PATH_SECRET}/x`)).toBe(
      'token [REDACTED] path /v1/momo/demo/[REDACTED]/x',
    );
  });

  it('reads a secret shared by several accounts through one cached reader', async () => {
    const config = cloudConfig();
    (config.accounts.momo as Record<string, unknown>).other = { currency: 'EUR', secretId: MOMO_SECRET_ID };
    const reads: string[] = [];
    const loaded = await load(config, async (id) => {
      reads.push(id);
      return SECRETS[id]!;
    });
    expect(loaded.accounts.get('momo/other')!.pathSecret).toBe(PATH_SECRET);
    expect(reads.filter((id) => id === MOMO_SECRET_ID)).toHaveLength(2); // the reader's cache dedupes (adapter test)
  });

  it('names the account and the secret when a secret cannot be read, never a value', async () => {
    const message = await loadError(cloudConfig(), async (id) => {
      if (id === DARAJA_SECRET_ID)
        throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
      return SECRETS[id]!;
    });
    expect(message).toContain(
      `accounts.daraja.ke.secretId: cannot read secret "${DARAJA_SECRET_ID}": Rate exceeded`,
    );
    expect(message).toContain('(config source: RELAY_CONFIG_JSON)');
    expect(message).not.toContain(PATH_SECRET);
  });

  it('refuses a secret that is not JSON without quoting it', async () => {
    const message = await loadError(
      cloudConfig(),
      fromMap({ ...SECRETS, [MOMO_SECRET_ID]: `pathSecret=${PATH_SECRET}` }),
    );
    expect(message).toContain(`accounts.momo.demo.secretId: secret "${MOMO_SECRET_ID}" is not valid JSON`);
    expect(message).not.toContain(PATH_SECRET);
  });

  it('refuses a secret that is JSON but not an object', async () => {
    for (const [text, what] of [
      [JSON.stringify(PATH_SECRET), 'a string'],
      ['[1]', 'an array'],
      ['null', 'null'],
    ] as const) {
      const message = await loadError(cloudConfig(), fromMap({ ...SECRETS, [MOMO_SECRET_ID]: text }));
      expect(message, text).toContain(`must hold a JSON object of the account's settings`);
      expect(message, text).toContain(`not ${what}`);
      expect(message).not.toContain(PATH_SECRET);
    }
  });

  it('refuses a secret naming another secret', async () => {
    const message = await loadError(
      cloudConfig(),
      fromMap({ ...SECRETS, [MOMO_SECRET_ID]: JSON.stringify({ secretId: 'elsewhere' }) }),
    );
    expect(message).toMatch(/accounts\.momo\.demo\.secretId: .* may not set secretId/);
  });

  it('validates the merged settings, naming the key (a bad value in the secret fails the cold start)', async () => {
    const message = await loadError(
      cloudConfig(),
      fromMap({ ...SECRETS, [MOMO_SECRET_ID]: JSON.stringify({ pathSecret: 'short' }) }),
    );
    expect(message).toMatch(/accounts\.momo\.demo\.pathSecret: path secrets must be at least 16 characters/);
  });

  it('fails the cold start when the secret does not hold the path secret synth relied on', async () => {
    const message = await loadError(cloudConfig(), fromMap({ ...SECRETS, [MOMO_SECRET_ID]: '{}' }));
    expect(message).toContain(
      `accounts.momo.demo.pathSecret: neither in the config nor in secret "${MOMO_SECRET_ID}"`,
    );
  });

  it('reports every unreadable secret at once', async () => {
    const message = await loadError(cloudConfig(), fromMap({}));
    expect(message).toContain('accounts.momo.demo.secretId');
    expect(message).toContain('accounts.daraja.ke.secretId');
  });

  it('reads nothing (and creates no reader) for a config without secretId', async () => {
    const readSecret = vi.fn();
    const result = await mergeAccountSecrets({ accounts: { momo: { demo: {} } } }, readSecret);
    expect(readSecret).not.toHaveBeenCalled();
    expect(result.values.size).toBe(0);
  });

  it('reads through Secrets Manager by default (one GetSecretValue per secret)', async () => {
    const secretsManager = mockClient(SecretsManagerClient);
    try {
      secretsManager.on(GetSecretValueCommand).callsFake((input: { SecretId: string }) => ({
        SecretString: SECRETS[input.SecretId],
      }));
      const reader = new SecretsManagerSecretReader({
        client: new SecretsManagerClient({ region: 'eu-west-1' }),
      });
      const config = await load(cloudConfig(), reader.read);
      expect(config.accounts.get('momo/demo')!.pathSecret).toBe(PATH_SECRET);
      expect(
        secretsManager
          .commandCalls(GetSecretValueCommand)
          .map((c) => c.args[0].input.SecretId)
          .sort(),
      ).toEqual([MOMO_SECRET_ID, DARAJA_SECRET_ID].sort());
    } finally {
      secretsManager.restore();
    }
  });
});

describe('accounts with secretId: synth (secrets not read)', () => {
  it('counts secretId as a path secret for the cloud check', () => {
    const config = parseConfig(cloudConfig(), { secretsUnresolved: true });
    expect(accountsWithoutPathSecret(config)).toEqual([]);
    const without = structuredClone(cloudConfig()) as ReturnType<typeof cloudConfig>;
    delete (without.accounts.momo.demo as { secretId?: string }).secretId;
    expect(
      accountsWithoutPathSecret(parseConfig(without, { secretsUnresolved: true })).map((a) => a.key),
    ).toEqual(['accounts.momo.demo.pathSecret']);
  });

  it('accepts settings the secret will provide (absent required keys) only for accounts naming a secret', () => {
    // Daraja api without its credentials, Airtel enforcing hashes without a callbackKey.
    const config = cloudConfig();
    (config.accounts.airtel.ug as Record<string, unknown>) = { secretId: 'relay/airtel-ug', country: 'UG' };
    expect(() => parseConfig(config, { secretsUnresolved: true })).not.toThrow();
    expect(() => parseConfig(config)).toThrow(/accounts\.daraja\.ke\.api\.consumerKey/);
    const noSecret = structuredClone(config);
    delete (noSecret.accounts.airtel.ug as { secretId?: string }).secretId;
    expect(() => parseConfig(noSecret, { secretsUnresolved: true })).toThrow(
      /accounts\.airtel\.ug\.callbackKey/,
    );
  });

  it('still reports what the config itself gets wrong in such an account', () => {
    const config = cloudConfig();
    Object.assign(config.accounts.daraja.ke, { currency: 'KES1' });
    expect(() => parseConfig(config, { secretsUnresolved: true })).toThrow(/accounts\.daraja\.ke\.currency/);
  });

  it('refuses a malformed secretId, naming it', () => {
    const config = cloudConfig();
    config.accounts.momo.demo.secretId = 'not a secret id!';
    expect(() => parseConfig(config, { secretsUnresolved: true })).toThrow(/accounts\.momo\.demo\.secretId/);
  });
});

describe('refreshingConfig', () => {
  const configs = (n: number) =>
    ({ publicBaseUrl: `http://localhost:${3000 + n}` }) as unknown as RelayConfig;

  it('loads again after the TTL, once however many callers wait', async () => {
    const clock = { t: 0 };
    let loads = 0;
    const refreshing = refreshingConfig(async () => configs(++loads), { ttlMs: 1000, now: () => clock.t });
    expect((await refreshing.current()).publicBaseUrl).toBe('http://localhost:3001');
    clock.t = 999;
    expect((await refreshing.current()).publicBaseUrl).toBe('http://localhost:3001');
    clock.t = 1000;
    const [a, b] = await Promise.all([refreshing.current(), refreshing.current()]);
    expect([a.publicBaseUrl, b.publicBaseUrl]).toEqual(['http://localhost:3002', 'http://localhost:3002']);
    expect(loads).toBe(2);
  });

  it('keeps the config in use when a reload fails, reports it, and retries later', async () => {
    const clock = { t: 0 };
    const errors: string[] = [];
    let fail = false;
    let loads = 0;
    const refreshing = refreshingConfig(
      async () => {
        loads++;
        if (fail) throw new Error('Secrets Manager unreachable');
        return configs(loads);
      },
      { ttlMs: 1000, retryAfterMs: 100, now: () => clock.t, onError: (e) => errors.push(e.message) },
    );
    await refreshing.current();
    fail = true;
    clock.t = 1000;
    expect((await refreshing.current()).publicBaseUrl).toBe('http://localhost:3001');
    expect(errors).toEqual(['Secrets Manager unreachable']);
    clock.t = 1050;
    await refreshing.current();
    expect(loads).toBe(2);
    fail = false;
    clock.t = 1100;
    expect((await refreshing.current()).publicBaseUrl).toBe('http://localhost:3003');
  });

  it('throws the first load failure (a cold start must fail)', async () => {
    const refreshing = refreshingConfig(async () => {
      throw new ConfigError('bad');
    });
    await expect(refreshing.current()).rejects.toThrow('bad');
  });
});
