/**
 * Bundled in place of `@aws-sdk/client-secrets-manager` (esbuild alias, see infra/bundling.ts): the client
 * and the one command the relay sends (shared/adapters/secrets/secrets-manager.ts), from the package's own
 * ESM build. That adapter is loaded lazily (`import()` in shared/config/load.ts), and through a lazily
 * loaded module esbuild keeps what the package's entry builds at import time: the aggregated
 * `SecretsManager` client (`createAggregatedClient`) with all 23 commands, 3 paginators and every
 * operation's schema, ~11.6 KB of every bundle that reads a secret, none of it ever run. Only the Lambda
 * bundles use this; local runs and tests keep the package entry. Should the relay send another Secrets
 * Manager command, export it here too (the bundle fails to build until then).
 */
// @ts-expect-error -- the package's ESM files have no declarations beside them (they live in dist-types)
export { SecretsManagerClient } from '../../node_modules/@aws-sdk/client-secrets-manager/dist-es/SecretsManagerClient.js';
// @ts-expect-error -- as above
export { GetSecretValueCommand } from '../../node_modules/@aws-sdk/client-secrets-manager/dist-es/commands/GetSecretValueCommand.js';
