import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_SECRET_TTL_MS,
  SecretReadError,
  SecretsManagerSecretReader,
} from '../../../../shared/adapters/secrets/secrets-manager';

const secretsManager = mockClient(SecretsManagerClient);
// The mock patches the client class every later file of this worker shares: undo it.
afterAll(() => secretsManager.restore());
afterEach(() => secretsManager.reset());

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:relay/momo-demo-AbCdEf';
const VALUE = JSON.stringify({ pathSecret: 'a1b2c3d4e5f6a7b8c9d0' });

function reader(clock = { t: 0 }, ttlMs?: number) {
  return new SecretsManagerSecretReader({
    client: new SecretsManagerClient({ region: 'eu-west-1' }),
    now: () => clock.t,
    ttlMs,
  });
}

function throttled(): Error {
  return Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $fault: 'client' });
}

describe('SecretsManagerSecretReader', () => {
  it('reads SecretString by the id it is given (ARN or name)', async () => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: VALUE });
    const { read } = reader();
    await expect(read(SECRET_ARN)).resolves.toBe(VALUE);
    await expect(read('relay/airtel-ug')).resolves.toBe(VALUE);
    expect(secretsManager.commandCalls(GetSecretValueCommand).map((c) => c.args[0].input.SecretId)).toEqual([
      SECRET_ARN,
      'relay/airtel-ug',
    ]);
  });

  it('reuses a value for the TTL (5 minutes by default), then asks again', async () => {
    expect(DEFAULT_SECRET_TTL_MS).toBe(300_000);
    secretsManager
      .on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: 'first' })
      .resolves({ SecretString: 'rotated' });
    const clock = { t: 0 };
    const { read } = reader(clock);
    await expect(read(SECRET_ARN)).resolves.toBe('first');
    clock.t = DEFAULT_SECRET_TTL_MS - 1;
    await expect(read(SECRET_ARN)).resolves.toBe('first');
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    clock.t = DEFAULT_SECRET_TTL_MS;
    await expect(read(SECRET_ARN)).resolves.toBe('rotated');
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('makes one call for concurrent reads of the same secret (accounts sharing it)', async () => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: VALUE });
    const { read } = reader();
    const values = await Promise.all([read(SECRET_ARN), read(SECRET_ARN), read(SECRET_ARN)]);
    expect(values).toEqual([VALUE, VALUE, VALUE]);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it('names the secret and the error on a throttled call, and does not cache the failure', async () => {
    secretsManager.on(GetSecretValueCommand).rejectsOnce(throttled()).resolves({ SecretString: VALUE });
    const { read } = reader();
    const error = await read(SECRET_ARN).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecretReadError);
    expect((error as SecretReadError).secretId).toBe(SECRET_ARN);
    expect((error as Error).message).toBe(
      `cannot read secret "${SECRET_ARN}" from Secrets Manager: ThrottlingException: Rate exceeded`,
    );
    await expect(read(SECRET_ARN)).resolves.toBe(VALUE);
  });

  it('names a secret that does not exist (or that the role may not read)', async () => {
    secretsManager.on(GetSecretValueCommand).rejects(
      new ResourceNotFoundException({
        message: "Secrets Manager can't find the specified secret.",
        $metadata: {},
      }),
    );
    await expect(reader().read('relay/missing')).rejects.toThrow(
      /cannot read secret "relay\/missing" from Secrets Manager: ResourceNotFoundException/,
    );
  });

  it('refuses a binary secret, saying to store JSON text', async () => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretBinary: new Uint8Array([1, 2, 3]) });
    await expect(reader().read(SECRET_ARN)).rejects.toThrow(/has no text value \(SecretString\)/);
  });

  it('asks again after clear()', async () => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: VALUE });
    const r = reader();
    await r.read(SECRET_ARN);
    r.clear();
    await r.read(SECRET_ARN);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });
});
