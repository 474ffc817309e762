import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { accountSecretIds } from '../../shared/config/loader';
import type { RelayConfig } from '../../shared/config/relay-config';
import {
  FUNCTION_SECRET_KINDS,
  parseSecretRef,
  SECRET_ID_KEYS,
  SECRET_KINDS,
  type SecretKind,
} from '../../shared/config/secret-reader';

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

/** The default `secretNamePrefix`: the prefix of the example config's secret names. */
export const DEFAULT_SECRET_NAME_PREFIX = 'mobile-money-relay/';

/**
 * Secret ids outside the naming convention (any other name, an ARN) are granted one by one; more than
 * this many would make the management and poller policies grow with every account towards IAM's size
 * limits (10,240 characters of inline policy per role), so synth refuses them and names them.
 */
const MAX_EXPLICIT_SECRET_IDS = 20;

/**
 * The longest a secret's ARN is before its name, deployed (the partition, region and account at their
 * longest): a secret granted by its name costs this and the name.
 */
export const SECRET_ARN_PREFIX_CHARS: number =
  'arn:aws-iso-b:secretsmanager:ap-southeast-5:123456789012:secret:'.length;

/**
 * Characters of IAM policy the secrets granted one by one (the ids outside the naming convention, the badge
 * shops' secrets) may take together, at their longest deployed: the poller holds all of them, and the
 * management function the account ones, in inline policies that already take about 3,000 of the 10,240
 * characters IAM allows all of a role's inline policies (test/infra/scale.test.ts measures them).
 */
const EXPLICIT_SECRET_GRANT_CHARS = 6_000;

/** What granting a secret id costs in a policy: its ARN (and the suffixed form of a given ARN), quoted. */
const grantChars = (id: string) =>
  id.startsWith('arn:') ? 2 * (id.length + 3) + '-??????'.length : SECRET_ARN_PREFIX_CHARS + id.length + 10;

/**
 * The IAM resource granting every secret of one kind named by the convention
 * `<secretNamePrefix><anything>/<kind>` (e.g. `mobile-money-relay/<provider>/<account>/callback`), with Secrets
 * Manager's random suffix: one statement whatever the number of accounts, and still one kind only (a
 * name ending in `/api` never matches the callback pattern).
 */
function secretNamePattern(stack: Stack, prefix: string, kind: SecretKind): string {
  return stack.formatArn({
    service: 'secretsmanager',
    resource: 'secret',
    resourceName: `${prefix}*/${kind}-??????`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

/** The secret name of an id: the id itself, or the resource part of an ARN (its random suffix kept). */
const secretNameOf = (id: string) =>
  id.startsWith('arn:') ? id.replace(/^arn:[^:]*:[^:]*:[^:]*:[^:]*:secret:/, '') : id;

/** The kind a secret name claims by the convention (its prefix and last segment), if any. */
function conventionKind(prefix: string, id: string): SecretKind | undefined {
  const name = secretNameOf(id);
  if (!name.startsWith(prefix)) return undefined;
  // An ARN's name may carry the random suffix: `…/api-AbCdEf` matches the pattern as well.
  return SECRET_KINDS.find((kind) =>
    new RegExp(`/${kind}(-[A-Za-z0-9]{6})?$`).test(name.slice(prefix.length)),
  );
}

/** `secretNamePrefix`: the characters of a secret name, no wildcard; at least one character. */
function secretNamePrefixProblem(prefix: string): string | undefined {
  return /^[A-Za-z0-9/_+=.@-]{1,200}$/.test(prefix)
    ? undefined
    : `secretNamePrefix: "${prefix}" is not a secret name prefix (1 to 200 characters of A-Z a-z 0-9 / _ + = . @ -, no wildcard)`;
}

export interface RelaySecretGrants {
  /** Every IAM resource an account or edge secret is granted on (the union of the kinds below). */
  readonly accountSecretArns: string[];
  /**
   * Per kind: `callback` (callbackSecretId, edge.originVerifySecretId, management.searchKeySecretId),
   * `api` (apiSecretId): the convention's pattern when a secret of the kind follows it, then the ARNs
   * of the ids outside it.
   */
  readonly secretArnsByKind: Readonly<Record<SecretKind, string[]>>;
  /** ARNs the poller may read for the badge shops' credentials (`badges.shops.<shop>.secretId`). */
  readonly badgeShopSecretArns: string[];
}

/** The secret ids the config names, with their config key and kind. */
function namedSecrets(config: RelayConfig): Array<{ key: string; id: string; kind: SecretKind }> {
  const named = [...config.accounts.values()].flatMap((account) =>
    SECRET_KINDS.flatMap((kind) => {
      const ref = accountSecretIds(account)[kind];
      // A keyed reference (`<secret>#<member>`) is granted as its secret: the accounts sharing it, one grant.
      return ref === undefined
        ? []
        : [
            {
              key: `accounts.${account.provider}.${account.id}.${SECRET_ID_KEYS[kind]}`,
              id: parseSecretRef(ref).secretId,
              kind,
            },
          ];
    }),
  );
  if (config.edge.originVerifySecretId)
    named.push({ key: 'edge.originVerifySecretId', id: config.edge.originVerifySecretId, kind: 'callback' });
  if (config.management.searchKeySecretId)
    named.push({
      key: 'management.searchKeySecretId',
      id: config.management.searchKeySecretId,
      kind: 'callback',
    });
  return named;
}

/**
 * How the config's secrets are granted (docs/deploy.md#secrets-and-rotation): per kind, one pattern for
 * the names that follow the convention, the ids outside it one by one. Throws, naming the key and the
 * id, when a name claims the other kind (an API credential named `…/callback` would be readable by the
 * internet-facing functions), when a badge shop's secret falls under a pattern, or when more than
 * MAX_EXPLICIT_SECRET_IDS ids are outside the convention.
 */
export function planSecretGrants(
  stack: Stack,
  config: RelayConfig,
  prefix: string,
): { byKind: Record<SecretKind, string[]>; badgeShopSecretArns: string[] } {
  const prefixProblem = secretNamePrefixProblem(prefix);
  if (prefixProblem) throw new Error(prefixProblem);
  const problems: string[] = [];
  const patterned = new Set<SecretKind>();
  const explicit = new Map<string, { key: string; kind: SecretKind }>();
  for (const { key, id, kind } of namedSecrets(config)) {
    const claimed = conventionKind(prefix, id);
    // An ARN is granted as given: it may name another account or region, which the pattern does not.
    if (claimed === kind && !id.startsWith('arn:')) patterned.add(kind);
    else if (claimed !== undefined && claimed !== kind)
      problems.push(
        `${key}: "${id}" is named like a ${claimed} secret ("${prefix}…/${claimed}"), and the relay grants those to the functions that read ${claimed} secrets; a ${kind} secret's name ends in "/${kind}" (e.g. "${prefix}<provider>/<account>/${kind}")`,
      );
    else if (!explicit.has(`${kind} ${id}`)) explicit.set(`${kind} ${id}`, { key, kind });
  }
  for (const [shop, { secretId }] of Object.entries(config.badges.shops)) {
    const claimed = secretId === undefined ? undefined : conventionKind(prefix, secretId);
    if (claimed)
      problems.push(
        `badges.shops.${shop}.secretId: "${secretId}" is named like a ${claimed} secret ("${prefix}…/${claimed}"), which other functions than the poller may read; name it outside that pattern`,
      );
  }
  if (explicit.size > MAX_EXPLICIT_SECRET_IDS) {
    const outside = [...explicit.entries()].map(
      ([kindAndId, { key }]) => `${key} ("${kindAndId.slice(kindAndId.indexOf(' ') + 1)}")`,
    );
    problems.push(
      `${outside.length} secret ids are outside the naming convention "${prefix}<anything>/callback" / "${prefix}<anything>/api" (at most ${MAX_EXPLICIT_SECRET_IDS}: each is granted one by one, and the IAM policies would outgrow their size limit): rename them (or set secretNamePrefix): ${outside.join(', ')}`,
    );
  }
  const badgeIds = new Set(Object.values(config.badges.shops).flatMap((shop) => shop.secretId ?? []));
  const chars = [...new Set([...explicit.keys()].map((k) => k.slice(k.indexOf(' ') + 1))), ...badgeIds]
    .map(grantChars)
    .reduce((sum, n) => sum + n, 0);
  if (chars > EXPLICIT_SECRET_GRANT_CHARS)
    problems.push(
      `the secrets granted one by one (${explicit.size} outside the naming convention, ${badgeIds.size} of badge shops) take ${chars} characters of IAM policy at their longest deployed, more than ${EXPLICIT_SECRET_GRANT_CHARS}: with the poller's own grants they would pass IAM's 10,240 characters of a role's inline policies. Name the accounts' secrets by the convention ("${prefix}<provider>/<account>/callback", "…/api"), let badge shops share a secret, or use shorter names`,
    );
  if (problems.length)
    throw new Error(`The config's secret ids cannot be granted:\n- ${problems.join('\n- ')}`);
  const byKind = Object.fromEntries(
    SECRET_KINDS.map((kind) => [
      kind,
      [
        ...(patterned.has(kind) ? [secretNamePattern(stack, prefix, kind)] : []),
        ...new Set(
          [...explicit.entries()]
            .filter(([, s]) => s.kind === kind)
            .flatMap(([kindAndId]) => secretArns(stack, kindAndId.slice(kindAndId.indexOf(' ') + 1))),
        ),
      ],
    ]),
  ) as Record<SecretKind, string[]>;
  const badgeShopSecretArns = [
    ...new Set(
      Object.values(config.badges.shops).flatMap((shop) =>
        shop.secretId ? secretArns(stack, shop.secretId) : [],
      ),
    ),
  ];
  return { byKind, badgeShopSecretArns };
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
  secretNamePrefix: string = DEFAULT_SECRET_NAME_PREFIX,
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
  const { byKind, badgeShopSecretArns } = planSecretGrants(stack, config, secretNamePrefix);
  const decrypting = new Set<lambda.IFunction>();
  for (const [id, fn] of Object.entries(fns.readers)) {
    const kinds = FUNCTION_SECRET_KINDS[id];
    if (!kinds)
      throw new Error(`grantConfigSecrets: no secret kinds for function "${id}" (FUNCTION_SECRET_KINDS)`);
    const resources = [...new Set(kinds.flatMap((kind) => byKind[kind]))];
    if (!resources.length) continue;
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources }));
    if (fn.role) suppressPatternFinding(fn.role, secretNamePrefix, kinds);
    if (secretsEncryptionKey) {
      fn.addToRolePolicy(decryptThroughSecretsManager());
      decrypting.add(fn);
    }
  }
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

/** cdk-nag IAM5 (wildcard resource) on the convention's patterns: explained, and only those patterns. */
function suppressPatternFinding(role: iam.IRole, prefix: string, kinds: readonly SecretKind[]): void {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  NagSuppressions.addResourceSuppressions(
    role,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason: `secretsmanager:GetSecretValue on the secrets named by the relay's convention, "${prefix}<anything>/<kind>-<Secrets Manager's 6-character suffix>", for the kinds this function reads (${kinds.join(', ')}): one statement whatever the number of accounts (IAM policy size), never another kind (an API credential's name ends in /api). Keep other secrets out of the prefix (docs/deploy.md#secrets-and-rotation).`,
        appliesTo: [
          {
            // The stack's region and account: tokens, or literal with an explicit env.
            regex: `/^Resource::arn:<AWS::Partition>:secretsmanager:(<AWS::Region>|[a-z0-9-]+):(<AWS::AccountId>|\\d{12}):secret:${escaped}\\*\\/(${kinds.join('|')})-\\?{6}$/g`,
          },
        ],
      },
    ],
    true,
  );
}
