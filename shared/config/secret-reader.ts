/**
 * The port config loading reads secrets through: Secrets Manager in the cloud
 * (shared/adapters/secrets/secrets-manager.ts), injected by the composition roots (shared/runtime/lambda.ts,
 * local/start.ts); a map in tests. The config layer never imports an adapter.
 */
export type SecretReader = (secretId: string) => Promise<string>;

/**
 * The two kinds of account secret, kept apart so that each function can read only what it needs:
 * - `callback`: what authenticates callbacks and builds their URLs (`pathSecret`, `previousPathSecret`,
 *   Airtel's `callbackKey`, Daraja's `c2b.partner.bearerToken`, the edge's origin secrets);
 * - `api`: the provider API credentials (everything under `api`), which move money.
 */
export type SecretKind = 'callback' | 'api';

export const SECRET_KINDS: readonly SecretKind[] = ['callback', 'api'];

/** The account key naming each kind's secret: `accounts.<provider>.<id>.<key>`. */
export const SECRET_ID_KEYS = { callback: 'callbackSecretId', api: 'apiSecretId' } as const satisfies Record<
  SecretKind,
  string
>;

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
