/**
 * Bundled in place of `@aws-sdk/middleware-endpoint-discovery` (esbuild alias, see infra/bundling.ts).
 * The DynamoDB client resolves endpoint-discovery settings on construction (a 1000-entry endpoint cache,
 * the AWS_ENABLE_ENDPOINT_DISCOVERY selectors), but in this SDK none of its commands installs the
 * discovery middleware that would read them (`getEndpointDiscoveryPlugin`: no DynamoDB command file
 * imports it), so the settings, the cache and its LRU are ~1.8 KB of every DynamoDB bundle that never
 * runs. Should a client's command ever take the plugin, it fails loudly here: remove the alias. Only the
 * Lambda bundles use this; local runs and tests keep the real module (test/unit/infra/endpoint-discovery-shim.test.ts
 * checks this shim still covers what the SDK imports).
 */
const unsupported = (): never => {
  throw new Error(
    'Endpoint discovery is not bundled in the relay Lambdas (infra/lambda-shims/no-endpoint-discovery.ts): remove the alias in infra/bundling.ts',
  );
};

/** Read by the client's runtime config; discovery is never on, whatever the environment says. */
export const NODE_ENDPOINT_DISCOVERY_CONFIG_OPTIONS = {
  environmentVariableSelector: (): undefined => undefined,
  configFileSelector: (): undefined => undefined,
  default: undefined,
};

/** What the client's constructor calls: the settings only a discovery middleware would read, none of them on. */
export const resolveEndpointDiscoveryConfig = <T extends object>(
  input: T,
  { endpointDiscoveryCommandCtor }: { endpointDiscoveryCommandCtor?: unknown },
) =>
  Object.assign(input, {
    endpointDiscoveryCommandCtor,
    endpointDiscoveryEnabled: () => Promise.resolve(false),
    isClientEndpointDiscoveryEnabled: false,
  });

export const endpointDiscoveryMiddlewareOptions = { name: 'endpointDiscoveryMiddleware' };
export const getEndpointDiscoveryPlugin = unsupported;
export const getEndpointDiscoveryRequiredPlugin = unsupported;
export const getEndpointDiscoveryOptionalPlugin = unsupported;
