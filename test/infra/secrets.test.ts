import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Aspects, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { MobileMoneyRelay, type MobileMoneyRelayProps } from '../../infra';
import { PROJECT_ROOT } from '../../infra/bundling';
import { synthOnce } from './relay-synth';

// Without its seal key member: these tests count the account secrets' grants (the seal's: relay-stack.test.ts).
const { ingressBuffer: _seal, ...exampleConfig } = JSON.parse(
  readFileSync(join(PROJECT_ROOT, 'infra/example-config.json'), 'utf8'),
);

const MOMO_CALLBACK_ARN =
  'arn:aws:secretsmanager:eu-west-1:123456789012:secret:relay/momo/demo/callback-AbCdEf';
const DARAJA_API_ID = 'relay/daraja/demo/api';
const EDGE_ID = 'relay/edge-origin';

type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };
const actionsOf = (s: Statement) => [s.Action].flat();

/** The config of a production relay: every secret by reference, one account with API credentials. */
function referencedConfig() {
  const config = structuredClone(exampleConfig);
  config.accounts.momo.demo.callbackSecretId = MOMO_CALLBACK_ARN;
  Object.assign(config.accounts.daraja.demo, {
    apiSecretId: DARAJA_API_ID,
    api: { baseUrl: 'https://sandbox.safaricom.co.ke' },
  });
  return { ...config, edge: { mode: 'cloudfront-or-direct', originVerifySecretId: EDGE_ID } };
}

function synth(config: unknown, props: Partial<MobileMoneyRelayProps> = {}) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Secrets');
  new MobileMoneyRelay(stack, 'Relay', { config, alarmEmail: 'oncall@example.org', ...props });
  Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
  const { annotations, template } = synthOnce(stack);
  return { stack, template, annotations, resources: template.toJSON().Resources as Record<string, any> };
}

function synthError(config: unknown, props: Partial<MobileMoneyRelayProps> = {}): string {
  try {
    new MobileMoneyRelay(new Stack(new App()), 'Relay', { config, ...props });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected synth to fail');
}

/** The secretsmanager:GetSecretValue resources of the role of the function named `name` (construct id prefix). */
function secretReads(resources: Record<string, any>, name: string): string[] {
  const fnId = Object.keys(resources).find(
    (id) => resources[id].Type === 'AWS::Lambda::Function' && id.startsWith(`Relay${name}Function`),
  )!;
  expect(fnId, name).toBeDefined();
  const roleRef = resources[fnId].Properties.Role['Fn::GetAtt'][0];
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: any) => x.Ref === roleRef))
    .flatMap((r) => r.Properties.PolicyDocument.Statement as Statement[])
    .filter((s) => actionsOf(s).includes('secretsmanager:GetSecretValue'))
    .flatMap((s) => [s.Resource].flat().map((r) => JSON.stringify(r)))
    .filter((r) => !/IngressBufferSealKey/.test(r));
}

describe('least privilege per secret (IAM)', () => {
  const { resources, annotations } = synth(referencedConfig());
  /** The airtel and daraja callback secrets follow the naming convention: one pattern grants both. */
  const CALLBACK_PATTERN = ':secret:mobile-money-relay/*/callback-??????';
  const isCallback = (r: string) =>
    r.includes(MOMO_CALLBACK_ARN) || r.includes(CALLBACK_PATTERN) || r.includes(EDGE_ID);
  const isApi = (r: string) => r.includes(`secret:${DARAJA_API_ID}-`) || r.includes('/api-??????');

  it('lets the callback and buffer-consumer functions read the callback secrets and never an API credential', () => {
    for (const fn of ['Callback', 'BufferConsumer', 'TransactionInitiated']) {
      const reads = secretReads(resources, fn);
      expect(reads.filter(isApi), fn).toEqual([]);
      // The MoMo ARN with and without its suffix, the convention's callback pattern, the edge's.
      expect(reads.filter(isCallback), fn).toHaveLength(4);
      expect(reads.length, fn).toBe(4);
    }
  });

  it('lets the poller and management read the API credentials (and the path secrets they put in callback URLs)', () => {
    for (const fn of ['Poller', 'Management']) {
      const reads = secretReads(resources, fn);
      expect(reads.filter(isApi), fn).toHaveLength(1);
      expect(reads.filter(isCallback), fn).toHaveLength(4);
    }
  });

  it('gives the outbox publisher no secret', () => {
    expect(secretReads(resources, 'OutboxPublisher')).toEqual([]);
  });

  it('grants exact secrets: a name with Secrets Manager’s 6-character suffix, an ARN as given and suffixed', () => {
    const reads = secretReads(resources, 'Poller');
    expect(reads).toContain(JSON.stringify(MOMO_CALLBACK_ARN));
    expect(reads).toContain(JSON.stringify(`${MOMO_CALLBACK_ARN}-??????`));
    expect(reads.some((r) => r.includes(`:secret:${DARAJA_API_ID}-??????`))).toBe(true);
    for (const r of reads) expect(r).not.toMatch(/secret:\*|secret:relay\/\*|secret:mobile-money-relay\/\*"/);
  });

  it('grants kms:Decrypt through Secrets Manager to the readers when the secrets use a customer key', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const keyStack = new Stack(app, 'Keys');
    const key = new kms.Key(keyStack, 'SecretsKey', { enableKeyRotation: true });
    const relayStack = new Stack(app, 'WithKey');
    new MobileMoneyRelay(relayStack, 'Relay', { config: referencedConfig(), secretsEncryptionKey: key });
    const all = Template.fromStack(relayStack).toJSON().Resources as Record<string, any>;
    const decrypts = Object.values(all)
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .flatMap((r) => r.Properties.PolicyDocument.Statement as Statement[])
      .filter(
        (s) =>
          actionsOf(s).includes('kms:Decrypt') &&
          JSON.stringify(s.Condition ?? '').includes('secretsmanager.'),
      );
    // Callback, management, poller, transaction-initiated, buffer consumer.
    expect(decrypts).toHaveLength(5);
  });

  it('stays cdk-nag clean', () => {
    const errors = annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(errors.map((e) => String(e.entry.data).split('\n')[0])).toEqual([]);
  });
});

describe('secrets granted by the naming convention (one statement per kind, whatever the number of accounts)', () => {
  /** Every account with a callback and an API secret named `<prefix><provider>/<account>/<kind>`. */
  function conventionalConfig(prefix = 'mobile-money-relay/') {
    const config = structuredClone(exampleConfig);
    for (const [provider, accounts] of Object.entries<any>(config.accounts))
      for (const [id, account] of Object.entries<any>(accounts)) {
        account.callbackSecretId = `${prefix}${provider}/${id}/callback`;
        account.apiSecretId = `${prefix}${provider}/${id}/api`;
      }
    return config;
  }
  const patternOf = (prefix: string, kind: string) =>
    JSON.stringify({
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':secretsmanager:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          `:secret:${prefix}*/${kind}-??????`,
        ],
      ],
    });

  it('grants the callback pattern to the callback-facing functions and both patterns to the poller and management, cdk-nag clean', () => {
    // Prepare / Act
    const { resources, annotations } = synth(conventionalConfig());
    // Assess
    for (const fn of ['Callback', 'BufferConsumer', 'TransactionInitiated'])
      expect(secretReads(resources, fn), fn).toEqual([patternOf('mobile-money-relay/', 'callback')]);
    for (const fn of ['Poller', 'Management'])
      expect(secretReads(resources, fn), fn).toEqual([
        patternOf('mobile-money-relay/', 'callback'),
        patternOf('mobile-money-relay/', 'api'),
      ]);
    const errors = annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(errors.map((e) => String(e.entry.data).split('\n')[0])).toEqual([]);
  });

  it('uses secretNamePrefix, and grants names under another prefix one by one', () => {
    // Prepare: the MoMo account under the relay's own prefix, the others under the default one.
    const config = conventionalConfig();
    config.accounts.momo.demo.callbackSecretId = 'relay-prod/momo/demo/callback';
    // Act
    const { resources } = synth(config, { secretNamePrefix: 'relay-prod/' });
    // Assess
    const reads = secretReads(resources, 'Callback');
    expect(reads[0]).toBe(patternOf('relay-prod/', 'callback'));
    expect(reads.slice(1).map((r) => r.match(/:secret:([^"]*)"/)![1])).toEqual([
      'mobile-money-relay/airtel/demo/callback-??????',
      'mobile-money-relay/daraja/demo/callback-??????',
    ]);
  });

  it('grants a shared secret (keyed references, <secret>#<member>) as its secret: by the pattern, or once outside it', () => {
    // Prepare: every account's callback settings in one shared secret, the API credentials in another
    // shared secret outside the convention.
    const config = conventionalConfig();
    for (const [provider, accounts] of Object.entries<any>(config.accounts))
      for (const [id, account] of Object.entries<any>(accounts)) {
        account.callbackSecretId = `mobile-money-relay/accounts/callback#${provider}/${id}`;
        account.apiSecretId = `partner-credentials#${provider}/${id}`;
      }
    // Act
    const { resources } = synth(config);
    // Assess: the callback-facing functions get the callback pattern only; the API secret one ARN, once.
    expect(secretReads(resources, 'Callback')).toEqual([patternOf('mobile-money-relay/', 'callback')]);
    const poller = secretReads(resources, 'Poller');
    expect(poller[0]).toBe(patternOf('mobile-money-relay/', 'callback'));
    expect(poller.slice(1).map((r) => r.match(/:secret:([^"]*)"/)![1])).toEqual([
      'partner-credentials-??????',
    ]);
    for (const read of [...poller, ...secretReads(resources, 'Callback')]) expect(read).not.toContain('#');
  });

  it('fails synth on an API credential named like a callback secret, naming the key and the id', () => {
    const config = conventionalConfig();
    config.accounts.daraja.demo.apiSecretId = 'mobile-money-relay/daraja/demo/callback';
    expect(synthError(config)).toContain(
      'accounts.daraja.demo.apiSecretId: "mobile-money-relay/daraja/demo/callback" is named like a callback secret',
    );
  });

  it('fails synth on a badge shop secret the callback pattern would hand to the callback function', () => {
    const config = {
      ...conventionalConfig(),
      badges: {
        shops: {
          corner: {
            baseUrl: 'https://badges.example.org',
            auth: { type: 'basic', username: 'relay' },
            secretId: 'mobile-money-relay/badges/corner/callback',
          },
        },
      },
    };
    const message = synthError(config);
    expect(message).toMatch(
      /badges.shops.corner.secretId: "mobile-money-relay\/badges\/corner\/callback" is named like a callback secret/,
    );
  });

  it('fails synth when more than 20 secret ids are outside the convention, listing them', () => {
    // Prepare: 21 MoMo accounts whose callback secrets are named freely.
    const config = conventionalConfig();
    for (let i = 0; i < 21; i++)
      config.accounts.momo[`till${i}`] = {
        ...config.accounts.momo.demo,
        callbackSecretId: `partner/till${i}`,
        apiSecretId: undefined,
      };
    // Act
    const message = synthError(config);
    // Assess
    expect(message).toContain('21 secret ids are outside the naming convention');
    expect(message).toContain('accounts.momo.till20.callbackSecretId ("partner/till20")');
  });

  it("fails synth when the secrets granted one by one pass the poller's room in IAM's inline policy, naming the limit", () => {
    // Prepare: 50 badge shops, each with its own secret of about 60 characters (6,750 characters granted).
    const shops = (n: number) =>
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => [
          `shop${i}`,
          {
            baseUrl: 'https://badges.example.org',
            auth: { type: 'basic', username: 'relay' },
            secretId: `badge-feeds/${'corner-shop-'.repeat(4)}${i}`,
          },
        ]),
      );
    // Act
    const message = synthError({ ...conventionalConfig(), badges: { shops: shops(50) } });
    // Assess
    expect(message).toMatch(
      /the secrets granted one by one \(0 outside the naming convention, 50 of badge shops\) take \d+ characters of IAM policy at their longest deployed, more than 6000: with the poller's own grants they would pass IAM's 10,240 characters of a role's inline policies/,
    );
  });

  it('refuses a secretNamePrefix with a wildcard', () => {
    expect(synthError(conventionalConfig(), { secretNamePrefix: 'relay/*' })).toContain(
      'secretNamePrefix: "relay/*" is not a secret name prefix',
    );
  });
});

describe('secrets never in the template: synth refuses them inline', () => {
  const inline = (edit: (config: any) => void) => {
    const config = structuredClone(exampleConfig);
    edit(config);
    return config;
  };
  const cases: Array<[string, (config: any) => void, string]> = [
    [
      'a path secret',
      (c) => (c.accounts.momo.demo.pathSecret = 'inline-path-secret-0123456789'),
      'accounts.momo.demo.pathSecret',
    ],
    [
      'an Airtel callback key',
      (c) => (c.accounts.airtel.demo.callbackKey = 'inline-airtel-callback-key-0123'),
      'accounts.airtel.demo.callbackKey',
    ],
    [
      'a C2B partner token',
      (c) =>
        (c.accounts.daraja.demo.c2b.partner = {
          url: 'https://partner.example.org/c2b',
          bearerToken: 'inline-partner-token-0123456789',
        }),
      'accounts.daraja.demo.c2b.partner.bearerToken',
    ],
    [
      'Daraja API credentials',
      (c) =>
        (c.accounts.daraja.demo.api = {
          baseUrl: 'https://sandbox.safaricom.co.ke',
          consumerKey: 'inline-consumer-key-0123',
          consumerSecret: 'inline-consumer-secret-0123',
        }),
      'accounts.daraja.demo.api.consumerSecret',
    ],
    [
      'the phone-number search key',
      (c) => (c.management = { ...c.management, searchKey: 'inline-search-key-0123456789abcdefgh' }),
      'management.searchKey',
    ],
    [
      'an edge origin secret',
      (c) =>
        (c.edge = {
          mode: 'cloudfront-or-direct',
          originVerifySecrets: ['inline-origin-secret-0123456789abcdefgh'],
        }),
      'edge.originVerifySecrets.0',
    ],
    [
      'a badge shop password',
      (c) =>
        (c.badges = {
          shops: {
            demo: {
              baseUrl: 'https://shop.example.net',
              auth: { type: 'basic', username: 'u', password: 'inline-shop-password' },
            },
          },
        }),
      'badges.shops.demo.auth.password',
    ],
  ];
  for (const [what, edit, key] of cases) {
    it(`fails on ${what}, naming ${key} and never the value`, () => {
      const config = inline(edit);
      const message = synthError(config);
      expect(message).toContain(`${key}: a secret written in the config would be deployed with it`);
      expect(message).toContain('RELAY_ALLOW_INLINE_SECRETS=development');
      expect(message).not.toMatch(/inline-[a-z-]+-0123|inline-shop-password/);
    });
  }

  it('fails on a management bearer token saying the cloud never uses it: remove it, not move it', () => {
    // Prepare: a local config's token left in the cloud config.
    const config = inline(
      (c) => (c.management = { ...c.management, bearerToken: 'inline-token-0123456789' }),
    );
    // Act
    const message = synthError(config);
    // Assess
    expect(message).toContain(
      'management.bearerToken: the cloud authorizes the management API with IAM and never deploys this token (it is for npm start): remove it from the cloud config',
    );
    expect(message).not.toContain('name it with nothing');
    expect(message).not.toContain('inline-token-0123456789');
  });

  it.each([
    [
      'a badge shop',
      'badges.shops.demo.baseUrl',
      (c: any) =>
        (c.badges = {
          shops: {
            demo: {
              baseUrl: 'https://admin:inline-url-password-0123@shop.example.net',
              secretId: 'relay/badges/demo',
              auth: { type: 'basic', username: 'u' },
            },
          },
        }),
    ],
    [
      'a C2B partner endpoint',
      'accounts.daraja.demo.c2b.partner.url',
      (c: any) =>
        (c.accounts.daraja.demo.c2b.partner = {
          url: 'https://relay:inline-url-password-0123@partner.example.org/c2b',
        }),
    ],
    [
      'a provider API',
      'accounts.momo.demo.api.baseUrl',
      (c: any) =>
        (c.accounts.momo.demo.api = {
          ...c.accounts.momo.demo.api,
          baseUrl: 'https://user:inline-url-password-0123@sandbox.momodeveloper.mtn.com',
        }),
    ],
  ])('fails on credentials inside a URL (%s), naming %s and never the value', (_what, key, edit) => {
    const message = synthError(inline(edit));
    expect(message).toContain(`${key}:`);
    expect(message).not.toContain('inline-url-password');
  });

  it('points API credentials at apiSecretId and callback settings at callbackSecretId', () => {
    expect(synthError(inline(cases[3]![1]))).toContain('name it with accounts.daraja.demo.apiSecretId');
    expect(synthError(inline(cases[1]![1]))).toContain('name it with accounts.airtel.demo.callbackSecretId');
  });

  it('fails on a placeholder, Airtel’s callback key included', () => {
    const message = synthError(
      inline((c) => {
        c.accounts.airtel.demo.callbackKey = 'REPLACE-with-the-airtel-app-callback-key';
        c.events.source = 'REPLACE-with-your-source';
      }),
    );
    expect(message).toContain('accounts.airtel.demo.callbackKey: a secret written in the config');
    expect(message).toContain('events.source: still a placeholder');
  });

  it('refuses a plain-string origin secret prop (it would be in the distribution config)', () => {
    const config = { ...exampleConfig, edge: { mode: 'cloudfront', originVerifySecretId: EDGE_ID } };
    expect(
      synthError(config, { cloudFront: { originVerifySecret: 'prop-origin-secret-0123456789abcdefghij' } }),
    ).toContain('cloudFront.originVerifySecret: a plain string would be written into the template');
  });

  it('accepts inline secrets and placeholders with the development flag, and warns', () => {
    const config = inline((c) => {
      c.accounts.momo.demo.pathSecret = 'REPLACE-with-openssl-rand-hex-16';
      delete c.accounts.momo.demo.callbackSecretId;
    });
    const { annotations } = synth(config, { allowInlineSecrets: 'development' });
    const warnings = annotations.findWarning('*', Match.anyValue()).map((w) => String(w.entry.data));
    expect(warnings.filter((w) => /allowInlineSecrets is "development"/.test(w))).toHaveLength(1);
  });

  it('refuses any other value of the flag', () => {
    expect(synthError(exampleConfig, { allowInlineSecrets: 'yes' as 'development' })).toContain(
      'allowInlineSecrets: "development" or unset (got "yes")',
    );
  });

  it('refuses the old secretId with what replaced it', () => {
    const config = inline((c) => (c.accounts.momo.demo = { currency: 'EUR', secretId: 'relay/momo-demo' }));
    expect(synthError(config)).toContain(
      'accounts.momo.demo.secretId: replaced by two secrets: callbackSecretId',
    );
  });
});

describe('secrets never in the template: by name too', () => {
  it('refuses API credentials written in an account whose settings are only checked in part', () => {
    // The account names a callback secret and lacks keys only a secret could give: synth checks it in
    // part, so the provider cannot declare its secrets; their names still give them away.
    const config = structuredClone(exampleConfig);
    config.accounts.daraja.demo.api = {
      baseUrl: 'https://sandbox.safaricom.co.ke',
      consumerSecret: 'x-0123',
    };
    const message = synthError(config);
    expect(message).toContain('accounts.daraja.demo.api.consumerSecret: a secret written in the config');
    expect(message).toContain('name it with accounts.daraja.demo.apiSecretId');
  });
});
