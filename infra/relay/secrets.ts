import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { accountSecretIds } from '../../shared/config/load';
import type { RelayConfig } from '../../shared/config/schema';
import { FUNCTION_SECRET_KINDS, SECRET_KINDS, type SecretKind } from '../../shared/config/secret-reader';

/**
 * IAM resources for a secret id. A name: the secret of that name in the stack's account and region,
 * with Secrets Manager's random 6-character suffix (`-??????`). An ARN: as given, and with the suffix
 * (a partial ARN, without it, cannot be told apart from a complete one reliably). Never a wider wildcard.
 */
export function secretArns(stack: Stack, secretId: string): string[] {
  if (secretId.startsWith('arn:')) return [secretId, `${secretId}-??????`];
  return [
    stack.formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${secretId}-??????`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    }),
  ];
}

export interface RelaySecretGrants {
  /** Every ARN an account or edge secret is granted on (the union of the kinds below). */
  readonly accountSecretArns: string[];
  /**
   * Per kind: `callback` (callbackSecretId, edge.originVerifySecretId, management.searchKeySecretId),
   * `api` (apiSecretId).
   */
  readonly secretArnsByKind: Readonly<Record<SecretKind, string[]>>;
  /** ARNs the poller may read for the badge shops' credentials (`badges.shops.<shop>.secretId`). */
  readonly badgeShopSecretArns: string[];
}

/** The secret ids of one kind the config names. */
export function configSecretIds(config: RelayConfig, kind: SecretKind): string[] {
  const ids = [...config.accounts.values()].flatMap((account) => accountSecretIds(account)[kind] ?? []);
  if (kind === 'callback' && config.edge.originVerifySecretId) ids.push(config.edge.originVerifySecretId);
  if (kind === 'callback' && config.management.searchKeySecretId)
    ids.push(config.management.searchKeySecretId);
  return [...new Set(ids)];
}

/**
 * Read access to the secrets the config names, per function and kind (FUNCTION_SECRET_KINDS, the table
 * the runtime loads by): the callback-facing functions (callback, its decision functions sharing its
 * role, buffer consumer) only the callback secrets; the poller and management the API credentials as
 * well. The badge shops' secrets: only the poller (it runs the badge feed). With
 * `secretsEncryptionKey`, kms:Decrypt through Secrets Manager.
 */
export function grantConfigSecrets(
  scope: Construct,
  config: RelayConfig,
  fns: { readers: Readonly<Record<string, lambda.IFunction>>; poller: lambda.IFunction },
  secretsEncryptionKey: kms.IKey | undefined,
): RelaySecretGrants {
  const stack = Stack.of(scope);
  const decryptThroughSecretsManager = () =>
    new iam.PolicyStatement({
      actions: ['kms:Decrypt'],
      resources: [secretsEncryptionKey!.keyArn],
      conditions: {
        StringEquals: { 'kms:ViaService': `secretsmanager.${stack.region}.${stack.urlSuffix}` },
      },
    });
  const byKind = Object.fromEntries(
    SECRET_KINDS.map((kind) => [
      kind,
      [...new Set(configSecretIds(config, kind).flatMap((id) => secretArns(stack, id)))],
    ]),
  ) as Record<SecretKind, string[]>;
  const decrypting = new Set<lambda.IFunction>();
  for (const [id, fn] of Object.entries(fns.readers)) {
    const kinds = FUNCTION_SECRET_KINDS[id];
    if (!kinds)
      throw new Error(`grantConfigSecrets: no secret kinds for function "${id}" (FUNCTION_SECRET_KINDS)`);
    const resources = [...new Set(kinds.flatMap((kind) => byKind[kind]))];
    if (!resources.length) continue;
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources }));
    if (secretsEncryptionKey) {
      fn.addToRolePolicy(decryptThroughSecretsManager());
      decrypting.add(fn);
    }
  }
  const badgeShopSecretArns = [
    ...new Set(
      Object.values(config.badges.shops).flatMap((shop) =>
        shop.secretId ? secretArns(stack, shop.secretId) : [],
      ),
    ),
  ];
  if (badgeShopSecretArns.length) {
    fns.poller.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: badgeShopSecretArns }),
    );
    if (secretsEncryptionKey && !decrypting.has(fns.poller)) {
      fns.poller.addToRolePolicy(decryptThroughSecretsManager());
    }
  }
  return {
    accountSecretArns: [...new Set([...byKind.callback, ...byKind.api])],
    secretArnsByKind: byKind,
    badgeShopSecretArns,
  };
}
