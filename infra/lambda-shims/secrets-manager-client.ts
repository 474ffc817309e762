/**
 * Bundled in place of `@aws-sdk/client-secrets-manager` (esbuild alias, see infra/bundling.ts): the client
 * and the one command the relay sends (shared/adapters/secrets/secrets-manager.ts). The package's entry
 * builds the aggregated `SecretsManager` client with all 23 commands, 3 paginators and every operation's
 * schema (~11.6 KB), and even its `SecretsManagerClient` alone registers the error classes of every
 * operation and imports its whole package.json (~9 KB more): slim-aws-client.ts rebuilds the client
 * without them (same retries, timeouts, signing, endpoint rules). GetSecretValue's schemas below are the
 * package's own (dist-es/schemas/schemas_0.js), copied; test/unit/infra/slim-clients.test.ts sends
 * through both clients and compares the requests on the wire and the answers. Only the Lambda bundles use
 * this; local runs and tests keep the package entry. Should the relay send another Secrets Manager
 * command, export it here too (the bundle fails to build until then).
 */
// @ts-expect-error -- the packages' ESM files have no declarations beside them (they live in dist-types)
import { AwsJson1_1Protocol } from '../../node_modules/@aws-sdk/core/dist-es/submodules/protocols/index.js';
import {
  defaultSecretsManagerHttpAuthSchemeParametersProvider,
  defaultSecretsManagerHttpAuthSchemeProvider,
  resolveHttpAuthSchemeConfig,
  // @ts-expect-error -- as above
} from '../../node_modules/@aws-sdk/client-secrets-manager/dist-es/auth/httpAuthSchemeProvider.js';
import {
  commonParams,
  resolveClientEndpointParameters,
  // @ts-expect-error -- as above
} from '../../node_modules/@aws-sdk/client-secrets-manager/dist-es/endpoint/EndpointParameters.js';
// @ts-expect-error -- as above
import { defaultEndpointResolver } from '../../node_modules/@aws-sdk/client-secrets-manager/dist-es/endpoint/endpointResolver.js';
// @ts-expect-error -- as above
import { SecretsManagerServiceException } from '../../node_modules/@aws-sdk/client-secrets-manager/dist-es/models/SecretsManagerServiceException.js';
// @ts-expect-error -- as above
import { resolveRuntimeExtensions } from '../../node_modules/@aws-sdk/client-secrets-manager/dist-es/runtimeExtensions.js';
// One field of the package.json: esbuild keeps only what is imported by name from a JSON file.
import { version } from '../../node_modules/@aws-sdk/client-secrets-manager/package.json';
import { slimClientClass, slimCommandBuilder } from './slim-aws-client';

export { SecretsManagerServiceException };

export const SecretsManagerClient = slimClientClass({
  serviceId: 'Secrets Manager',
  apiVersion: '2017-10-17',
  clientVersion: version,
  protocol: AwsJson1_1Protocol,
  protocolSettings: {
    defaultNamespace: 'com.amazonaws.secretsmanager',
    version: '2017-10-17',
    serviceTarget: 'secretsmanager',
  },
  baseException: SecretsManagerServiceException,
  defaultSocketTimeoutMs: 300_000,
  httpAuthSchemeProvider: defaultSecretsManagerHttpAuthSchemeProvider,
  httpAuthSchemeParametersProvider: defaultSecretsManagerHttpAuthSchemeParametersProvider,
  resolveHttpAuthSchemeConfig,
  endpointResolver: defaultEndpointResolver,
  resolveClientEndpointParameters,
  resolveRuntimeExtensions,
});

// GetSecretValue's schemas, from the package's dist-es/schemas/schemas_0.js (same shapes, same traits:
// 8 marks the secret values sensitive, kept out of the SDK's logs).
const n0 = 'com.amazonaws.secretsmanager';
const SecretBinaryType = [0, n0, 'SecretBinaryType', 8, 21];
const SecretStringType = [0, n0, 'SecretStringType', 8, 0];
const GetSecretValueRequest$ = [
  3,
  n0,
  'GetSecretValueRequest',
  0,
  ['SecretId', 'VersionId', 'VersionStage'],
  [0, 0, 0],
  1,
];
const GetSecretValueResponse$ = [
  3,
  n0,
  'GetSecretValueResponse',
  0,
  ['ARN', 'Name', 'VersionId', 'SecretBinary', 'SecretString', 'VersionStages', 'CreatedDate'],
  [0, 0, 0, [() => SecretBinaryType, 0], [() => SecretStringType, 0], 64 | 0, 4],
];
const GetSecretValue$ = [
  9,
  n0,
  'GetSecretValue',
  0,
  () => GetSecretValueRequest$,
  () => GetSecretValueResponse$,
];

/** The schemas copied above, by name (test/unit/infra/slim-clients.test.ts compares them with the package's). */
export const COPIED_SCHEMAS: Record<string, unknown> = { GetSecretValue$ };

const command = slimCommandBuilder(commonParams, 'secretsmanager', 'SecretsManagerClient');

export class GetSecretValueCommand extends command({}, () => [], 'GetSecretValue', GetSecretValue$) {}
