/* eslint-disable @typescript-eslint/no-explicit-any -- the SDK's generated clients are typed by code generation; this rebuilds one from its parts */
/**
 * A generated AWS SDK v3 client rebuilt from its parts, for the Lambda bundles' slim clients (esbuild
 * aliases, infra/bundling.ts; sqs-send-message.ts, secrets-manager-client.ts, dynamodb-client.ts). It is
 * the generated `<Service>Client` constructor and runtime config line for line (same config resolvers,
 * same middleware plugins in the same order, same defaults: retries, timeouts, SigV4, endpoint rules, user
 * agent), with two differences that are the point: the error registry holds the service's base exception
 * (and the few error classes a spec names) only, and the client version is read as one field of its
 * package.json. A generated client's `schemas/schemas_0.js` registers every operation's error class in
 * module scope (esbuild must keep them all), and its runtime config imports its whole package.json for
 * that version string. An error the registry does not hold comes back as the service's base exception
 * with the error code as its `name` and the service's message: what the generated client does for a code
 * it does not know, and all the relay's adapters read of an error.
 *
 * The service's own small parts (endpoint rules, auth scheme, endpoint parameters, runtime extensions)
 * come from its package's ESM build; what every client shares comes from @smithy/core and @aws-sdk/core,
 * as in the generated client (so the bundle holds one copy). Only the Lambda bundles use this; local
 * runs and tests keep the packages' entries. test/unit/infra/slim-clients.test.ts compares the two on
 * the wire, compares their config and middleware, and fails when an SDK upgrade moves or renames a part
 * imported here or changes a copied schema.
 */
// @ts-expect-error -- the packages' ESM files have no declarations beside them (they live in dist-types)
import * as awsClient from '../../node_modules/@aws-sdk/core/dist-es/submodules/client/index.js';
// @ts-expect-error -- as above
import * as awsAuth from '../../node_modules/@aws-sdk/core/dist-es/submodules/httpAuthSchemes/index.js';
// @ts-expect-error -- as above
import * as smithy from '../../node_modules/@smithy/core/dist-es/index.js';
// @ts-expect-error -- as above
import * as smithyClient from '../../node_modules/@smithy/core/dist-es/submodules/client/index.js';
// @ts-expect-error -- as above
import * as smithyConfig from '../../node_modules/@smithy/core/dist-es/submodules/config/index.js';
// @ts-expect-error -- as above
import * as smithyEndpoints from '../../node_modules/@smithy/core/dist-es/submodules/endpoints/index.js';
// @ts-expect-error -- as above
import * as smithyProtocols from '../../node_modules/@smithy/core/dist-es/submodules/protocols/index.js';
// @ts-expect-error -- as above
import * as smithyRetry from '../../node_modules/@smithy/core/dist-es/submodules/retry/index.js';
import {
  getSchemaSerdePlugin,
  TypeRegistry,
  // @ts-expect-error -- as above
} from '../../node_modules/@smithy/core/dist-es/submodules/schema/index.js';
// @ts-expect-error -- as above
import * as serde from '../../node_modules/@smithy/core/dist-es/submodules/serde/index.js';
import {
  NodeHttpHandler,
  streamCollector,
  // @ts-expect-error -- as above
} from '../../node_modules/@smithy/node-http-handler/dist-es/index.js';
// What the bundles' aliases give the generated clients for `@aws-sdk/credential-provider-node` and
// `@smithy/core/checksum` (credentials-from-env.ts, native-checksums.ts).
import { defaultProvider as credentialDefaultProvider } from './credentials-from-env';
import { Md5, Sha256 } from './native-checksums';

/** What differs from one service to the next: the values and parts of its generated client. */
export interface SlimServiceSpec {
  serviceId: string;
  apiVersion: string;
  /** The package's version (its client version in the user agent). */
  clientVersion: string;
  /** The protocol class (`AwsJson1_0Protocol`, `AwsJson1_1Protocol`) and its settings, less the error registries. */
  protocol: unknown;
  protocolSettings: {
    defaultNamespace: string;
    version: string;
    serviceTarget: string;
    [key: string]: unknown;
  };
  /** The service's base exception class (`<Service>ServiceException`). */
  baseException: new (options: any) => Error;
  defaultSocketTimeoutMs: number;
  /** The client checks message MD5s (SQS): its runtime config has an `md5` hash. */
  md5?: boolean;
  /** From the package's ESM build: auth/httpAuthSchemeProvider.js, endpoint/*, runtimeExtensions.js. */
  httpAuthSchemeProvider: unknown;
  httpAuthSchemeParametersProvider: unknown;
  resolveHttpAuthSchemeConfig: (config: any) => any;
  endpointResolver: unknown;
  resolveClientEndpointParameters: (config: any) => any;
  resolveRuntimeExtensions: (config: any, extensions: unknown[]) => any;
  /** The service's own config resolvers and plugins, in the generated client's order (SQS: the queue URL). */
  resolveServiceConfig?: (config: any) => any;
  servicePlugins?: (config: any) => unknown[];
  /**
   * What some generated clients add (DynamoDB): a resolver right after the endpoint parameters (the
   * account-id endpoint mode), one after the auth scheme config (endpoint discovery), the retry defaults
   * passed to `resolveRetryConfig`, protocol settings made per client (a JSON codec instance), and runtime
   * config entries of their own (set over the shared ones, as the generated runtimeConfig.js lists them).
   */
  resolveAfterEndpointParameters?: (config: any) => any;
  resolveAfterHttpAuthScheme?: (config: any) => any;
  retryDefaults?: Record<string, unknown>;
  protocolSettingsPerClient?: () => Record<string, unknown>;
  serviceRuntimeConfig?: (
    config: Record<string, any>,
    loaderConfig: { profile: unknown; logger: unknown },
  ) => Record<string, unknown>;
  /**
   * Error classes the relay's code tells apart (`instanceof`) or that the SDK retries by their class's
   * trait: registered under the service's namespace as the generated schemas do, each with its schema.
   * Every other error comes back as the base exception named by its code.
   */
  errors?: ReadonlyArray<readonly [schema: unknown, ctor: new (options: any) => Error]>;
}

/**
 * The error registries: the base exception under the synthetic namespace the protocol looks it up in, and
 * the spec's own errors (if any) under the service's namespace.
 */
function errorRegistries(spec: SlimServiceSpec): unknown[] {
  const namespace = `smithy.ts.sdk.synthetic.${spec.protocolSettings.defaultNamespace}`;
  const registry = new TypeRegistry(namespace);
  const name = spec.baseException.name;
  registry.registerError([-3, namespace, name, 0, [], []], spec.baseException);
  if (!spec.errors?.length) return [registry];
  const own = new TypeRegistry(spec.protocolSettings.defaultNamespace);
  for (const [schema, ctor] of spec.errors) own.registerError(schema, ctor);
  return [registry, own];
}

/** The protocol's settings: the service's, its error registries, and what each client gets its own of. */
function protocolSettings(spec: SlimServiceSpec, errorTypeRegistries: unknown[]) {
  return { ...spec.protocolSettings, errorTypeRegistries, ...spec.protocolSettingsPerClient?.() };
}

/** runtimeConfig.shared.js and runtimeConfig.js of a generated client, merged. */
function runtimeConfig(spec: SlimServiceSpec, config: Record<string, any>, errorTypeRegistries: unknown[]) {
  smithyClient.emitWarningIfUnsupportedVersion(process.version);
  const defaultsMode = smithyConfig.resolveDefaultsModeConfig(config);
  const defaultConfigProvider = () => defaultsMode().then(smithyClient.loadConfigsForDefaultMode);
  const shared = {
    apiVersion: spec.apiVersion,
    base64Decoder: config.base64Decoder ?? serde.fromBase64,
    base64Encoder: config.base64Encoder ?? serde.toBase64,
    disableHostPrefix: config.disableHostPrefix ?? false,
    endpointProvider: config.endpointProvider ?? spec.endpointResolver,
    extensions: config.extensions ?? [],
    httpAuthSchemeProvider: config.httpAuthSchemeProvider ?? spec.httpAuthSchemeProvider,
    httpAuthSchemes: config.httpAuthSchemes ?? [
      {
        schemeId: 'aws.auth#sigv4',
        identityProvider: (ipc: any) => ipc.getIdentityProvider('aws.auth#sigv4'),
        signer: new awsAuth.AwsSdkSigV4Signer(),
      },
    ],
    logger: config.logger ?? new smithyClient.NoOpLogger(),
    ...(spec.md5 ? { md5: config.md5 ?? Md5 } : {}),
    protocol: config.protocol ?? spec.protocol,
    protocolSettings: config.protocolSettings ?? protocolSettings(spec, errorTypeRegistries),
    serviceId: config.serviceId ?? spec.serviceId,
    sha256: config.sha256 ?? Sha256,
    urlParser: config.urlParser ?? smithyProtocols.parseUrl,
    utf8Decoder: config.utf8Decoder ?? serde.fromUtf8,
    utf8Encoder: config.utf8Encoder ?? serde.toUtf8,
  };
  awsClient.emitWarningIfUnsupportedVersion(process.version);
  const loaderConfig = { profile: config.profile, logger: shared.logger };
  const load = smithyConfig.loadConfig;
  return {
    ...shared,
    ...config,
    runtime: 'node',
    defaultsMode,
    authSchemePreference:
      config.authSchemePreference ?? load(awsAuth.NODE_AUTH_SCHEME_PREFERENCE_OPTIONS, loaderConfig),
    bodyLengthChecker: config.bodyLengthChecker ?? serde.calculateBodyLength,
    credentialDefaultProvider: config.credentialDefaultProvider ?? credentialDefaultProvider,
    defaultSocketTimeout: awsClient.getDefaultSocketTimeout(
      config.requestHandler,
      spec.defaultSocketTimeoutMs,
    ),
    defaultUserAgentProvider:
      config.defaultUserAgentProvider ??
      awsClient.createDefaultUserAgentProvider({
        serviceId: shared.serviceId,
        clientVersion: spec.clientVersion,
      }),
    maxAttempts: config.maxAttempts ?? load(smithyRetry.NODE_MAX_ATTEMPT_CONFIG_OPTIONS, config),
    region:
      config.region ??
      load(smithyConfig.NODE_REGION_CONFIG_OPTIONS, {
        ...smithyConfig.NODE_REGION_CONFIG_FILE_OPTIONS,
        ...loaderConfig,
      }),
    requestHandler: NodeHttpHandler.create(config.requestHandler ?? defaultConfigProvider),
    retryMode:
      config.retryMode ??
      load(
        {
          ...smithyRetry.NODE_RETRY_MODE_CONFIG_OPTIONS,
          default: async () => (await defaultConfigProvider()).retryMode || smithyRetry.DEFAULT_RETRY_MODE,
        },
        config,
      ),
    streamCollector: config.streamCollector ?? streamCollector,
    useDualstackEndpoint:
      config.useDualstackEndpoint ??
      load(smithyConfig.NODE_USE_DUALSTACK_ENDPOINT_CONFIG_OPTIONS, loaderConfig),
    useFipsEndpoint:
      config.useFipsEndpoint ?? load(smithyConfig.NODE_USE_FIPS_ENDPOINT_CONFIG_OPTIONS, loaderConfig),
    userAgentAppId: config.userAgentAppId ?? load(awsClient.NODE_APP_ID_CONFIG_OPTIONS, loaderConfig),
    ...spec.serviceRuntimeConfig?.(config, loaderConfig),
  };
}

/** The generated `<Service>Client` class for `spec`: same constructor, same plugins, same order. */
export function slimClientClass(spec: SlimServiceSpec): new (configuration?: Record<string, any>) => any {
  const errorTypeRegistries = errorRegistries(spec);
  const Client: new (config: any) => any = smithyClient.Client;
  return class SlimClient extends Client {
    constructor(configuration: Record<string, any> = {}) {
      const config0 = runtimeConfig(spec, configuration, errorTypeRegistries);
      super(config0);
      this.initConfig = config0;
      let config = spec.resolveClientEndpointParameters(config0);
      if (spec.resolveAfterEndpointParameters) config = spec.resolveAfterEndpointParameters(config);
      config = awsClient.resolveUserAgentConfig(config);
      config = spec.retryDefaults
        ? smithyRetry.resolveRetryConfig(config, spec.retryDefaults)
        : smithyRetry.resolveRetryConfig(config);
      config = smithyConfig.resolveRegionConfig(config);
      config = awsClient.resolveHostHeaderConfig(config);
      config = smithyEndpoints.resolveEndpointConfig(config);
      if (spec.resolveServiceConfig) config = spec.resolveServiceConfig(config);
      config = spec.resolveHttpAuthSchemeConfig(config);
      if (spec.resolveAfterHttpAuthScheme) config = spec.resolveAfterHttpAuthScheme(config);
      this.config = spec.resolveRuntimeExtensions(config, configuration.extensions || []);
      this.middlewareStack.use(getSchemaSerdePlugin(this.config));
      this.middlewareStack.use(awsClient.getUserAgentPlugin(this.config));
      this.middlewareStack.use(smithyRetry.getRetryPlugin(this.config));
      this.middlewareStack.use(smithyProtocols.getContentLengthPlugin(this.config));
      this.middlewareStack.use(awsClient.getHostHeaderPlugin(this.config));
      this.middlewareStack.use(awsClient.getLoggerPlugin(this.config));
      this.middlewareStack.use(awsClient.getRecursionDetectionPlugin(this.config));
      for (const plugin of spec.servicePlugins?.(this.config) ?? []) this.middlewareStack.use(plugin);
      this.middlewareStack.use(
        smithy.getHttpAuthSchemeEndpointRuleSetPlugin(this.config, {
          httpAuthSchemeParametersProvider: spec.httpAuthSchemeParametersProvider,
          identityProviderConfigProvider: async (config: any) =>
            new smithy.DefaultIdentityProviderConfig({ 'aws.auth#sigv4': config.credentials }),
        }),
      );
      this.middlewareStack.use(smithy.getHttpSigningPlugin(this.config));
    }
  };
}

/** The generated `commandBuilder.js`'s `command` for a service: `command(endpointParams, plugins, name, schema)`. */
export function slimCommandBuilder(commonParams: unknown, serviceTarget: string, clientName: string) {
  return smithyClient.makeBuilder(commonParams, serviceTarget, clientName, smithyEndpoints.getEndpointPlugin);
}
