import { constants, generateKeyPairSync, privateDecrypt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  c2bSchema,
  DARAJA_DEFAULT_SOURCE_IPS,
  darajaAccountSchema,
  resultSchema,
  stkCallbackSchema,
  timeoutEchoShapeSchema,
  timeoutResultShapeSchema,
} from '../../../../shared/providers/daraja/schema';
import { darajaProvider } from '../../../../shared/providers/daraja';
import { parseConfig } from '../../../../shared/config/load';
import { ConfigError } from '../../../../shared/domain/errors';

const fixture = (name: string): any =>
  JSON.parse(readFileSync(join(import.meta.dirname, '../../../fixtures/daraja', name), 'utf8'));

describe('Daraja body schemas', () => {
  it.each([
    ['stk-success.json', stkCallbackSchema],
    ['stk-cancelled.json', stkCallbackSchema],
    ['stk-string-resultcode.json', stkCallbackSchema],
    ['b2c-result-success.json', resultSchema],
    ['b2c-result-failure.json', resultSchema],
    ['status-result.json', resultSchema],
    ['b2c-timeout-echo.json', timeoutEchoShapeSchema],
    ['c2b-validation.json', c2bSchema],
    ['c2b-confirmation.json', c2bSchema],
  ] as const)('accepts the fixture %s', (name, schema) => {
    expect(schema.safeParse(fixture(name)).success).toBe(true);
  });

  it('accepts a string ResultCode and keeps it as text', () => {
    const parsed = stkCallbackSchema.parse(fixture('stk-string-resultcode.json'));
    expect(parsed.Body.stkCallback.ResultCode).toBe('SFC_IC0003');
  });

  it('accepts CallbackMetadata items without a Value (Balance)', () => {
    const parsed = stkCallbackSchema.parse(fixture('stk-success.json'));
    expect(parsed.Body.stkCallback.CallbackMetadata?.Item).toContainEqual({ Name: 'Balance' });
  });

  it('accepts a single CallbackMetadata item given as an object instead of an array', () => {
    const body = fixture('stk-success.json');
    body.Body.stkCallback.CallbackMetadata.Item = { Name: 'Amount', Value: 1 };
    expect(stkCallbackSchema.parse(body).Body.stkCallback.CallbackMetadata?.Item).toEqual([
      { Name: 'Amount', Value: 1 },
    ]);
  });

  it('accepts ReferenceItem as an object and as an array, always yielding an array', () => {
    const asObject = resultSchema.parse(fixture('b2c-result-success.json'));
    const body = fixture('b2c-result-success.json');
    body.Result.ReferenceData.ReferenceItem = [
      { Key: 'QueueTimeoutURL', Value: 'https://example.com/t' },
      { Key: 'Occasion' },
    ];
    const asArray = resultSchema.parse(body);
    expect(asObject.Result.ReferenceData?.ReferenceItem).toHaveLength(1);
    expect(asArray.Result.ReferenceData?.ReferenceItem).toHaveLength(2);
  });

  it('keeps every ResultParameter of a repeated key', () => {
    const parsed = resultSchema.parse(fixture('status-result.json'));
    const names = parsed.Result.ResultParameters?.ResultParameter?.filter((p) => p.Key === 'DebitPartyName');
    expect(names?.map((p) => p.Value)).toEqual(['600310 - Safaricom333', '254708374149 - John Doe']);
  });

  it('tolerates unknown members everywhere and keeps them', () => {
    const body = fixture('stk-success.json');
    body.Extra = { nested: true };
    body.Body.stkCallback.NewField = 'x';
    const parsed = stkCallbackSchema.parse(body) as Record<string, unknown>;
    expect(parsed.Extra).toEqual({ nested: true });
  });

  it('accepts both queue-timeout shapes', () => {
    const echo = timeoutEchoShapeSchema.safeParse(fixture('b2c-timeout-echo.json'));
    const result = timeoutResultShapeSchema.safeParse({
      Result: { ResultType: 1, ResultCode: 1037, OriginatorConversationID: '1-2-3', ConversationID: 'AG_1' },
    });
    expect([echo.success, result.success]).toEqual([true, true]);
  });

  it('rejects an STK callback without CheckoutRequestID', () => {
    const body = fixture('stk-success.json');
    delete body.Body.stkCallback.CheckoutRequestID;
    expect(stkCallbackSchema.safeParse(body).success).toBe(false);
  });

  it('rejects a result that carries neither OriginatorConversationID nor ConversationID', () => {
    const body = fixture('b2c-result-success.json');
    delete body.Result.OriginatorConversationID;
    delete body.Result.ConversationID;
    expect(resultSchema.safeParse(body).success).toBe(false);
  });

  it('rejects a C2B body without TransID', () => {
    const body = fixture('c2b-validation.json');
    delete body.TransID;
    expect(c2bSchema.safeParse(body).success).toBe(false);
  });
});

describe('Daraja account settings', () => {
  it('defaults to KES, the 15 cited Safaricom addresses in enforce mode, a 5 s deadline and accept', () => {
    const settings = darajaAccountSchema.parse({});
    expect(settings.currency).toBe('KES');
    expect(settings.sourceIp).toEqual({ mode: 'enforce', allow: [...DARAJA_DEFAULT_SOURCE_IPS] });
    expect(DARAJA_DEFAULT_SOURCE_IPS).toHaveLength(15);
    expect(settings.c2b).toMatchObject({
      deadlineMs: 5000,
      defaultDecision: 'accept',
      defaultRejectCode: 'C2B00016',
    });
  });

  it('refuses a deadline above the 7.5 s hard cap', () => {
    expect(darajaAccountSchema.safeParse({ c2b: { deadlineMs: 7501 } }).success).toBe(false);
    expect(darajaAccountSchema.safeParse({ c2b: { deadlineMs: 7500 } }).success).toBe(true);
  });

  it('refuses an invalid BillRefNumber pattern, CIDR, reject code or amount range', () => {
    expect(darajaAccountSchema.safeParse({ c2b: { billRefPattern: '([' } }).success).toBe(false);
    expect(darajaAccountSchema.safeParse({ sourceIp: { allow: ['196.201.214.0/33'] } }).success).toBe(false);
    expect(darajaAccountSchema.safeParse({ c2b: { defaultRejectCode: 'C2B00099' } }).success).toBe(false);
    expect(darajaAccountSchema.safeParse({ c2b: { minAmount: 10, maxAmount: 5 } }).success).toBe(false);
  });

  it('refuses misspelt c2b settings instead of ignoring them', () => {
    expect(darajaAccountSchema.safeParse({ c2b: { deadlinems: 300 } }).success).toBe(false);
  });
});

describe('Daraja initiator password (Daraja API docs: special characters limited to # & % $, no parentheses, @ ordinary)', () => {
  const API = {
    baseUrl: 'https://sandbox.safaricom.co.ke',
    consumerKey: 'consumer-key',
    consumerSecret: 'consumer-secret',
    initiator: 'testapi',
  };
  const config = (api: Record<string, unknown>) => ({
    management: { bearerToken: 'a-long-enough-token' },
    accounts: {
      daraja: { ke: { pathSecret: 'daraja-path-secret-0123', shortCode: '600638', api: { ...API, ...api } } },
    },
  });
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();

  it.each(['Safaricom(123)', 'pass word1', 'Pa!ss', 'Päss1'])(
    'fails the config on %j, naming accounts.daraja.<id>.api.initiatorPassword and not quoting the password',
    (initiatorPassword) => {
      // Act
      const load = () => parseConfig(config({ initiatorPassword, securityCertificate: publicKeyPem }));
      // Assess
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(/accounts\.daraja\.ke\.api\.initiatorPassword: \d+ character\(s\) Daraja refuses/);
      expect(() => load()).not.toThrow(initiatorPassword);
    },
  );

  it('says so when parentheses are among the refused characters', () => {
    expect(() => parseConfig(config({ initiatorPassword: 'Safaricom(1)', securityCredential: 'x' }))).toThrow(
      /parentheses among them/,
    );
  });

  it('accepts letters, digits, @ and # & % $, and encrypts the password into the SecurityCredential', () => {
    // Prepare
    const initiatorPassword = 'Safaricom@2024#&%$';
    // Act
    const api = darajaAccountSchema.parse({
      api: { ...API, initiatorPassword, securityCertificate: publicKeyPem },
    }).api!;
    // Assess: the credential is the password in a PKCS#1 v1.5 block under the key (0x00 0x02 padding 0x00 password)
    const block = privateDecrypt(
      { key: privateKey, padding: constants.RSA_NO_PADDING },
      Buffer.from(api.securityCredential!, 'base64'),
    );
    expect([block[0], block[1]]).toEqual([0, 2]);
    expect(block.subarray(block.indexOf(0, 2) + 1).toString()).toBe(initiatorPassword);
  });

  it('encrypts with a certificate as Daraja ships it (PEM X.509), keeps a given securityCredential, and scrubs the password', () => {
    // Prepare
    const certificate = readFileSync(
      join(import.meta.dirname, '../../../fixtures/daraja/initiator-test-certificate.pem'),
      'utf8',
    );
    // Act
    const fromCertificate = darajaAccountSchema.parse({
      api: { ...API, initiatorPassword: 'Safaricom999', securityCertificate: certificate },
    }).api!;
    const given = darajaAccountSchema.parse({
      api: { ...API, initiatorPassword: 'Safaricom999', securityCredential: 'already-encrypted' },
    }).api!;
    // Assess
    expect(Buffer.from(fromCertificate.securityCredential!, 'base64')).toHaveLength(256);
    expect(given.securityCredential).toBe('already-encrypted');
    expect(
      darajaProvider.secrets!(
        darajaAccountSchema.parse({
          api: { ...API, initiatorPassword: 'Safaricom999', securityCredential: 'c' },
        }),
      ),
    ).toContain('Safaricom999');
  });

  it('refuses an initiatorPassword with neither a certificate nor a securityCredential', () => {
    expect(() => parseConfig(config({ initiatorPassword: 'Safaricom999' }))).toThrow(
      /accounts\.daraja\.ke\.api\.securityCertificate: initiatorPassword needs/,
    );
  });
});
