import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { accountSecretId } from '../../shared/config/load';
import type { RelayConfig } from '../../shared/config/schema';

/**
 * IAM resources for a `secretId`. A name: the secret of that name in the stack's account and region,
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
  /** ARNs `secretsmanager:GetSecretValue` is granted on (from the accounts' `secretId`). */
  readonly accountSecretArns: string[];
  /** ARNs the poller may read for the badge shops' credentials (`badges.shops.<shop>.secretId`). */
  readonly badgeShopSecretArns: string[];
}

/**
 * Read access to the secrets the config names: the accounts' (every function that loads the config reads
 * every account's secret at cold start, since the config is validated whole) and the badge shops' (only
 * the poller runs the badge feed). With `secretsEncryptionKey`, kms:Decrypt through Secrets Manager.
 */
export function grantConfigSecrets(
  scope: Construct,
  config: RelayConfig,
  fns: { configReaders: lambda.IFunction[]; poller: lambda.IFunction },
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
  const accountSecretArns = [
    ...new Set(
      [...config.accounts.values()].flatMap((account) => {
        const secretId = accountSecretId(account);
        return secretId ? secretArns(stack, secretId) : [];
      }),
    ),
  ];
  if (accountSecretArns.length) {
    for (const fn of fns.configReaders) {
      fn.addToRolePolicy(
        new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: accountSecretArns }),
      );
      if (secretsEncryptionKey) fn.addToRolePolicy(decryptThroughSecretsManager());
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
    // kms:Decrypt through Secrets Manager: already granted to the poller with the account secrets.
    if (secretsEncryptionKey && !accountSecretArns.length) {
      fns.poller.addToRolePolicy(decryptThroughSecretsManager());
    }
  }
  return { accountSecretArns, badgeShopSecretArns };
}
