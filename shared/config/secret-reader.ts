/**
 * The port config loading reads secrets through: Secrets Manager in the cloud
 * (shared/adapters/secrets/secrets-manager.ts), injected by the composition roots (shared/runtime/lambda.ts,
 * local/start.ts); a map in tests. The config layer never imports an adapter.
 */
export type SecretReader = (secretId: string) => Promise<string>;

/**
 * An account's secret reference (`callbackSecretId`, `apiSecretId`): a Secrets Manager secret id (ARN or
 * name), optionally followed by `#<member>`, the member of the secret's JSON object that holds this
 * account's settings, so that several accounts share one secret (each secret bills $0.40 a month,
 * issue 28; docs/configuration.md#secrets). `#` is in no secret name or ARN, so the split is unambiguous.
 */
export interface SecretRef {
  /** The secret to read and to grant (the part before `#`). */
  readonly secretId: string;
  /** The member of its JSON object that is this account's; absent: the whole object is. */
  readonly member?: string;
}

/** The one place a secret reference is split (loading, grants and `npm run cost` all read it here). */
export function parseSecretRef(ref: string): SecretRef {
  const hash = ref.indexOf('#');
  return hash < 0 ? { secretId: ref } : { secretId: ref.slice(0, hash), member: ref.slice(hash + 1) };
}

/** What an account's secret reference may be: a secret id, and optionally `#` and a member name. */
export const SECRET_REF_PATTERN: RegExp = /^[A-Za-z0-9/_+=.@:-]{1,2048}(#[A-Za-z0-9/_+=.@-]{1,256})?$/;

/**
 * The two kinds of account secret, kept apart so that each function can read only what it needs:
 * - `callback`: what authenticates callbacks and builds their URLs (`pathSecret`, `previousPathSecret`,
 *   Airtel's `callbackKey`, Daraja's `c2b.partner.bearerToken`, the edge's origin secrets);
 * - `api`: the provider API credentials (everything under `api`), which move money.
 */
export type SecretKind = 'callback' | 'api';

export const SECRET_KINDS: readonly SecretKind[] = ['callback', 'api'];

/** The account key naming each kind's secret: `accounts.<provider>.<id>.<key>`. */
export const SECRET_ID_KEYS: { readonly [K in SecretKind]: `${K}SecretId` } = {
  callback: 'callbackSecretId',
  api: 'apiSecretId',
};

/**
 * Which secrets each relay function reads: the runtime loads only these (shared/runtime/lambda.ts) and
 * the CDK construct grants only these (infra/relay/secrets.ts). The callback-facing functions never see
 * API credentials; the functions that hand out callback URLs (MoMo X-Callback-Url at registration, the
 * Daraja status query's ResultURL) need the path secret, so they read the callback secret as well.
 * A function not listed reads no secret.
 */
export const FUNCTION_SECRET_KINDS: Readonly<Record<string, readonly SecretKind[]>> = {
  callback: ['callback'],
  // The callback code on a decision route (infra/relay/functions.ts), sharing the callback role.
  'c2b-validation': ['callback'],
  'buffer-consumer': ['callback'],
  'transaction-initiated': ['callback'],
  management: ['callback', 'api'],
  poller: ['callback', 'api'],
  'outbox-publisher': [],
  // Statement imports and the scheduled close call no provider: no account secret.
  statements: [],
  // Webhook signing secrets are read by `signingSecretId` (infra/relay/delivery.ts grants those), no account secret.
  delivery: [],
};

/** How long a warm process uses the secrets it read before reading them again (docs/deploy.md#secrets-and-rotation). */
export const DEFAULT_SECRET_REFRESH_MS = 60_000;
