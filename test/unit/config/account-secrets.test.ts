import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it, vi } from 'vitest';
import { SecretsManagerSecretReader } from '../../../shared/adapters/secrets/secrets-manager';
import { accountsWithoutPathSecret, loadConfig, parseConfig } from '../../../shared/config/load';
import { accountSecretIds, resolveSecrets } from '../../../shared/config/loader';
import type { SecretKind } from '../../../shared/config/secret-reader';
import { configuredSecrets, secretScrubber } from '../../../shared/config/secrets';
import { ConfigError } from '../../../shared/domain/errors';

const MOMO_CALLBACK_ID = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:relay/momo-demo-AbCdEf';
const DARAJA_CALLBACK_ID = 'relay/daraja-ke/callback';
const DARAJA_API_ID = 'relay/daraja-ke/api';
const EDGE_ID = 'relay/edge';
const PATH_SECRET = 'c0ffee0123456789abcdef';
const DARAJA_PATH_SECRET = 'daraja-path-secret-0123';
const CONSUMER_SECRET = 'daraja-consumer-secret-value';
const PARTNER_TOKEN = 'partner-token-for-c2b-decisions';
const ORIGIN_SECRET = 'origin-verify-secret-0123456789abcdefghij';

/** The config as written for the cloud: secrets live in Secrets Manager, named per kind. */
function cloudConfig() {
  return {
    management: { auth: 'iam' },
    accounts: {
      momo: { demo: { currency: 'EUR', callbackSecretId: MOMO_CALLBACK_ID } as Record<string, unknown> },
      daraja: {
        ke: {
          shortCode: '600638',
          currency: 'KES',
          callbackSecretId: DARAJA_CALLBACK_ID,
          apiSecretId: DARAJA_API_ID,
          api: { baseUrl: 'https://sandbox.safaricom.co.ke', stkQueriesPerMinute: 5 },
          c2b: { partner: { url: 'https://partner.example.org/c2b-decisions' } },
        } as Record<string, unknown>,
      },
      airtel: {
        ug: { callbackKey: 'airtel-inline-callback-key', country: 'UG', currency: 'UGX' } as Record<
          string,
          unknown
        >,
      },
    },
  };
}

const SECRETS: Record<string, string> = {
  [MOMO_CALLBACK_ID]: JSON.stringify({ pathSecret: PATH_SECRET }),
  [DARAJA_CALLBACK_ID]: JSON.stringify({
    pathSecret: DARAJA_PATH_SECRET,
    c2b: { partner: { bearerToken: PARTNER_TOKEN } },
  }),
  [DARAJA_API_ID]: JSON.stringify({
    api: { consumerKey: 'daraja-consumer-key-value', consumerSecret: CONSUMER_SECRET },
  }),
  [EDGE_ID]: JSON.stringify({ originVerifySecret: ORIGIN_SECRET }),
};

const fromMap =
  (secrets: Record<string, string>, reads: string[] = []) =>
  async (secretId: string): Promise<string> => {
    reads.push(secretId);
    const value = secrets[secretId];
    if (value === undefined) throw new Error(`no such secret ${secretId}`);
    return value;
  };

const load = (config: unknown, readSecret = fromMap(SECRETS), secretKinds?: SecretKind[]) =>
  loadConfig({ RELAY_CONFIG_JSON: JSON.stringify(config) }, undefined, { readSecret, secretKinds });

async function loadError(config: unknown, readSecret = fromMap(SECRETS)): Promise<string> {
  const error = await load(config, readSecret).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as Error).message;
}

describe('callbackSecretId and apiSecretId: loading (cold start)', () => {
  it('merges each secret into its account before validation', async () => {
    const config = await load(cloudConfig());
    const momo = config.accounts.get('momo/demo')!;
    expect(momo.pathSecret).toBe(PATH_SECRET);
    expect(accountSecretIds(momo)).toEqual({ callback: MOMO_CALLBACK_ID });
    const daraja = config.accounts.get('daraja/ke')!;
    expect(daraja.pathSecret).toBe(DARAJA_PATH_SECRET);
    expect(accountSecretIds(daraja)).toEqual({ callback: DARAJA_CALLBACK_ID, api: DARAJA_API_ID });
    // Merged member by member: the config's api settings stay, the secret adds the credentials.
    expect(daraja.settings.api).toMatchObject({
      baseUrl: 'https://sandbox.safaricom.co.ke',
      stkQueriesPerMinute: 5,
      consumerKey: 'daraja-consumer-key-value',
      consumerSecret: CONSUMER_SECRET,
    });
    expect(daraja.settings.c2b).toMatchObject({ partner: { bearerToken: PARTNER_TOKEN } });
  });

  it('reads only the kinds a function may: the callback function never reads API credentials', async () => {
    const reads: string[] = [];
    const config = await load(cloudConfig(), fromMap(SECRETS, reads), ['callback']);
    expect(reads.sort()).toEqual([DARAJA_CALLBACK_ID, MOMO_CALLBACK_ID].sort());
    const daraja = config.accounts.get('daraja/ke')!;
    expect(daraja.pathSecret).toBe(DARAJA_PATH_SECRET);
    expect(daraja.settings.c2b).toMatchObject({ partner: { bearerToken: PARTNER_TOKEN } });
    // The rest of `api` goes too: nothing in this process calls the provider's API.
    expect(daraja.settings.api).toBeUndefined();
    expect(configuredSecrets(config)).not.toContain(CONSUMER_SECRET);
  });

  it('reads the API secrets beside the callback secrets for the poller and management', async () => {
    const reads: string[] = [];
    await load(cloudConfig(), fromMap(SECRETS, reads), ['callback', 'api']);
    expect(reads.sort()).toEqual([DARAJA_API_ID, DARAJA_CALLBACK_ID, MOMO_CALLBACK_ID].sort());
  });

  it('turns the edge secret into the accepted origin values, current first', async () => {
    const config = {
      ...cloudConfig(),
      edge: { mode: 'cloudfront', originVerifySecretId: EDGE_ID },
    };
    const secrets = {
      ...SECRETS,
      [EDGE_ID]: JSON.stringify({
        originVerifySecret: ORIGIN_SECRET,
        previousOriginVerifySecret: 'origin-verify-previous-0123456789abcdefgh',
      }),
    };
    const loaded = await load(config, fromMap(secrets), ['callback']);
    expect(loaded.edge.originVerifySecrets).toEqual([
      ORIGIN_SECRET,
      'origin-verify-previous-0123456789abcdefgh',
    ]);
    expect(configuredSecrets(loaded)).toContain(ORIGIN_SECRET);
  });

  it('reads the phone-number search key from its secret, and scrubs it like every secret', async () => {
    // Prepare
    const SEARCH_ID = 'relay/search-key';
    const SEARCH_KEY = 'search-key-from-secrets-manager-0123456789';
    const config = { ...cloudConfig(), management: { auth: 'iam', searchKeySecretId: SEARCH_ID } };
    const reads: string[] = [];
    // Act
    const loaded = await load(
      config,
      fromMap({ ...SECRETS, [SEARCH_ID]: JSON.stringify({ searchKey: SEARCH_KEY }) }, reads),
      ['callback'],
    );
    const misshapen = load(
      config,
      fromMap({ ...SECRETS, [SEARCH_ID]: JSON.stringify({ key: SEARCH_KEY }) }),
      ['callback'],
    );
    // Assess
    expect(reads).toContain(SEARCH_ID);
    expect(loaded.management.searchKey).toBe(SEARCH_KEY);
    expect(configuredSecrets(loaded)).toContain(SEARCH_KEY);
    await expect(misshapen).rejects.toThrow(/management\.searchKeySecretId: .*\{"searchKey": "…"\}/);
  });

  it('registers every value from a secret with the scrubber, whatever its key', async () => {
    const secrets = {
      ...SECRETS,
      [MOMO_CALLBACK_ID]: JSON.stringify({ pathSecret: PATH_SECRET, targetEnvironment: 'mtn-internal-env' }),
    };
    const loaded = await load(cloudConfig(), fromMap(secrets));
    expect(configuredSecrets(loaded)).toEqual(
      expect.arrayContaining([PATH_SECRET, 'mtn-internal-env', CONSUMER_SECRET, PARTNER_TOKEN]),
    );
    const scrub = secretScrubber(loaded);
    expect(scrub(`token ${CONSUMER_SECRET} path /v1/momo/demo/${PATH_SECRET}/x`)).toBe(
      'token [REDACTED] path /v1/momo/demo/[REDACTED]/x',
    );
  });

  it('refuses the old secretId with what replaced it', async () => {
    const config = cloudConfig();
    config.accounts.momo.demo = { currency: 'EUR', secretId: MOMO_CALLBACK_ID };
    const message = await loadError(config);
    expect(message).toContain('accounts.momo.demo.secretId: replaced by two secrets: callbackSecretId');
    expect(message).toContain('apiSecretId');
  });

  it('keeps API credentials out of the callback secret and callback settings out of the API secret', async () => {
    const inCallback = await loadError(
      cloudConfig(),
      fromMap({
        ...SECRETS,
        [DARAJA_CALLBACK_ID]: JSON.stringify({ pathSecret: DARAJA_PATH_SECRET, api: {} }),
      }),
    );
    expect(inCallback).toMatch(
      /accounts\.daraja\.ke\.callbackSecretId: secret "relay\/daraja-ke\/callback" may not set api \(API credentials belong in apiSecretId/,
    );
    const inApi = await loadError(
      cloudConfig(),
      fromMap({ ...SECRETS, [DARAJA_API_ID]: JSON.stringify({ api: {}, pathSecret: DARAJA_PATH_SECRET }) }),
    );
    expect(inApi).toContain(
      `accounts.daraja.ke.apiSecretId: secret "${DARAJA_API_ID}" must hold exactly {"api"`,
    );
    expect(inApi).not.toContain(DARAJA_PATH_SECRET);
  });

  it('names the key and the secret when a secret cannot be read, never a value', async () => {
    const message = await loadError(cloudConfig(), async (id) => {
      if (id === DARAJA_API_ID)
        throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
      return SECRETS[id]!;
    });
    expect(message).toContain(
      `accounts.daraja.ke.apiSecretId: cannot read secret "${DARAJA_API_ID}": Rate exceeded`,
    );
    expect(message).toContain('(config source: RELAY_CONFIG_JSON)');
    expect(message).not.toContain(PATH_SECRET);
  });

  it('refuses a secret that is not a JSON object without quoting it', async () => {
    const notJson = await loadError(
      cloudConfig(),
      fromMap({ ...SECRETS, [MOMO_CALLBACK_ID]: `pathSecret=${PATH_SECRET}` }),
    );
    expect(notJson).toContain(
      `accounts.momo.demo.callbackSecretId: secret "${MOMO_CALLBACK_ID}" is not valid JSON`,
    );
    expect(notJson).not.toContain(PATH_SECRET);
    const text = await loadError(
      cloudConfig(),
      fromMap({ ...SECRETS, [MOMO_CALLBACK_ID]: JSON.stringify(PATH_SECRET) }),
    );
    expect(text).toContain('not a string');
    expect(text).not.toContain(PATH_SECRET);
  });

  it('validates the merged settings, naming the key', async () => {
    const message = await loadError(
      cloudConfig(),
      fromMap({ ...SECRETS, [MOMO_CALLBACK_ID]: JSON.stringify({ pathSecret: 'short' }) }),
    );
    expect(message).toMatch(/accounts\.momo\.demo\.pathSecret: path secrets must be at least 16 characters/);
  });

  it('fails the cold start when the callback secret does not hold the path secret synth relied on', async () => {
    const message = await loadError(cloudConfig(), fromMap({ ...SECRETS, [MOMO_CALLBACK_ID]: '{}' }));
    expect(message).toContain(
      `accounts.momo.demo.pathSecret: neither in the config nor in secret "${MOMO_CALLBACK_ID}"`,
    );
  });

  it('refuses a previous path secret without a current one', async () => {
    const message = await loadError(
      cloudConfig(),
      fromMap({ ...SECRETS, [MOMO_CALLBACK_ID]: JSON.stringify({ previousPathSecret: PATH_SECRET }) }),
    );
    expect(message).toContain('accounts.momo.demo.previousPathSecret: accepted only beside a pathSecret');
  });

  it('refuses a config naming secrets when no reader was wired', async () => {
    const error = await loadConfig({ RELAY_CONFIG_JSON: JSON.stringify(cloudConfig()) }).catch(
      (e: Error) => e,
    );
    expect((error as Error).message).toContain('no secret reader was given');
  });

  it('reads nothing for a config naming no secret', async () => {
    const readSecret = vi.fn();
    const result = await resolveSecrets({ accounts: { momo: { demo: {} } } }, { readSecret });
    expect(readSecret).not.toHaveBeenCalled();
    expect(result.values.size).toBe(0);
  });

  it('reads through the Secrets Manager adapter when it is injected (one GetSecretValue per secret)', async () => {
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
      ).toEqual([DARAJA_API_ID, DARAJA_CALLBACK_ID, MOMO_CALLBACK_ID].sort());
    } finally {
      secretsManager.restore();
    }
  });
});

describe('callbackSecretId and apiSecretId: synth (secrets not read)', () => {
  it('counts a callbackSecretId as a path secret for the cloud check, an apiSecretId not', () => {
    expect(accountsWithoutPathSecret(parseConfig(cloudConfig(), { secretsUnresolved: true }))).toEqual([]);
    const apiOnly = cloudConfig();
    apiOnly.accounts.momo.demo = { currency: 'EUR', apiSecretId: 'relay/momo-api' };
    expect(
      accountsWithoutPathSecret(parseConfig(apiOnly, { secretsUnresolved: true })).map((a) => a.key),
    ).toEqual(['accounts.momo.demo.pathSecret']);
  });

  it('accepts settings a secret will provide only for accounts naming a secret', () => {
    const config = cloudConfig();
    config.accounts.airtel.ug = { callbackSecretId: 'relay/airtel-ug', country: 'UG', currency: 'UGX' };
    expect(() => parseConfig(config, { secretsUnresolved: true })).not.toThrow();
    expect(() => parseConfig(config)).toThrow(/accounts\.daraja\.ke\.api\.consumerKey/);
    const noSecret = structuredClone(config);
    delete noSecret.accounts.airtel.ug.callbackSecretId;
    expect(() => parseConfig(noSecret, { secretsUnresolved: true })).toThrow(
      /accounts\.airtel\.ug\.callbackKey/,
    );
  });

  it('refuses a malformed secret id, naming it', () => {
    const config = cloudConfig();
    config.accounts.momo.demo.callbackSecretId = 'not a secret id!';
    expect(() => parseConfig(config, { secretsUnresolved: true })).toThrow(
      /accounts\.momo\.demo\.callbackSecretId/,
    );
  });
});

describe('a keyed reference: several accounts in one secret (<secret>#<member>)', () => {
  const SHARED_CALLBACK_ID = 'mobile-money-relay/accounts/callback';
  const SHARED_API_ID = 'mobile-money-relay/accounts/api';
  const AIRTEL_KEY = 'airtel-callback-key-from-the-shared-secret';
  /** The cloud config with every account's secrets in two shared secrets, one per kind. */
  function sharedConfig() {
    const config = cloudConfig();
    config.accounts.momo.demo.callbackSecretId = `${SHARED_CALLBACK_ID}#momo/demo`;
    config.accounts.daraja.ke.callbackSecretId = `${SHARED_CALLBACK_ID}#daraja/ke`;
    config.accounts.daraja.ke.apiSecretId = `${SHARED_API_ID}#daraja/ke`;
    config.accounts.airtel.ug = {
      callbackSecretId: `${SHARED_CALLBACK_ID}#airtel/ug`,
      country: 'UG',
      currency: 'UGX',
    };
    return config;
  }
  const SHARED: Record<string, string> = {
    [SHARED_CALLBACK_ID]: JSON.stringify({
      'momo/demo': { pathSecret: PATH_SECRET },
      'daraja/ke': { pathSecret: DARAJA_PATH_SECRET, c2b: { partner: { bearerToken: PARTNER_TOKEN } } },
      'airtel/ug': { callbackKey: AIRTEL_KEY },
    }),
    [SHARED_API_ID]: JSON.stringify({
      'daraja/ke': { api: { consumerKey: 'daraja-consumer-key-value', consumerSecret: CONSUMER_SECRET } },
    }),
  };

  it("merges each account's member of the shared secret into that account, and only that member", async () => {
    // Act
    const config = await load(sharedConfig(), fromMap(SHARED));
    // Assess
    expect(config.accounts.get('momo/demo')!.pathSecret).toBe(PATH_SECRET);
    expect(config.accounts.get('momo/demo')!.settings).not.toHaveProperty('callbackKey');
    const daraja = config.accounts.get('daraja/ke')!;
    expect(daraja.pathSecret).toBe(DARAJA_PATH_SECRET);
    expect(daraja.settings.api).toMatchObject({ consumerSecret: CONSUMER_SECRET, stkQueriesPerMinute: 5 });
    expect(config.accounts.get('airtel/ug')!.settings).toMatchObject({ callbackKey: AIRTEL_KEY });
    // No account's settings carry another account's member name.
    expect(daraja.settings).not.toHaveProperty('momo/demo');
    expect(secretScrubber(config)(`key ${AIRTEL_KEY} token ${PARTNER_TOKEN}`)).not.toMatch(
      new RegExp(`${AIRTEL_KEY}|${PARTNER_TOKEN}`),
    );
  });

  it('reads a shared secret once for all its accounts through the Secrets Manager adapter', async () => {
    // Prepare
    const secretsManager = mockClient(SecretsManagerClient);
    try {
      secretsManager.on(GetSecretValueCommand).callsFake((input: { SecretId: string }) => ({
        SecretString: SHARED[input.SecretId],
      }));
      const reader = new SecretsManagerSecretReader({
        client: new SecretsManagerClient({ region: 'eu-west-1' }),
      });
      // Act
      await load(sharedConfig(), reader.read);
      // Assess: two secrets, two calls, whatever the number of accounts in them.
      expect(
        secretsManager
          .commandCalls(GetSecretValueCommand)
          .map((c) => c.args[0].input.SecretId)
          .sort(),
      ).toEqual([SHARED_API_ID, SHARED_CALLBACK_ID]);
    } finally {
      secretsManager.restore();
    }
  });

  it('keeps the kinds apart: the callback function never reads the shared API secret', async () => {
    const reads: string[] = [];
    const config = await load(sharedConfig(), fromMap(SHARED, reads), ['callback']);
    expect([...new Set(reads)]).toEqual([SHARED_CALLBACK_ID]);
    expect(config.accounts.get('daraja/ke')!.settings.api).toBeUndefined();
  });

  it('names the key, the secret and the member when the member is missing, never a value', async () => {
    // Prepare
    const config = sharedConfig();
    config.accounts.momo.demo.callbackSecretId = `${SHARED_CALLBACK_ID}#momo/other`;
    // Act
    const message = await loadError(config, fromMap(SHARED));
    // Assess
    expect(message).toContain(
      `accounts.momo.demo.callbackSecretId: secret "${SHARED_CALLBACK_ID}" has no JSON object under "momo/other"`,
    );
    expect(message).not.toContain(PATH_SECRET);
    expect(message).not.toContain(AIRTEL_KEY);
  });

  it("checks a member's shape like a whole secret's: no API credentials in a shared callback secret", async () => {
    const secrets = {
      ...SHARED,
      [SHARED_CALLBACK_ID]: JSON.stringify({ 'momo/demo': { pathSecret: PATH_SECRET, api: { key: 'k' } } }),
    };
    const config = sharedConfig();
    delete config.accounts.daraja.ke.callbackSecretId;
    config.accounts.airtel.ug = { callbackKey: 'airtel-inline-callback-key', country: 'UG', currency: 'UGX' };
    const message = await loadError(config, fromMap(secrets));
    expect(message).toContain(`secret "${SHARED_CALLBACK_ID}#momo/demo" may not set api`);
  });

  it('refuses a malformed member at synth, naming the key', () => {
    const config = sharedConfig();
    config.accounts.momo.demo.callbackSecretId = `${SHARED_CALLBACK_ID}#momo demo`;
    expect(() => parseConfig(config, { secretsUnresolved: true })).toThrow(
      /accounts\.momo\.demo\.callbackSecretId: .*#<member>/,
    );
  });
});
