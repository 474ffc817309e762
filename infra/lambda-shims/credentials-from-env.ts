import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Bundled in place of `@aws-sdk/credential-provider-node` (esbuild alias, see infra/bundling.ts).
 * In Lambda the execution role's credentials are always in the environment (AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), and that is the first thing the default chain reads;
 * the rest of the chain (SSO, INI profiles, STS web identity, container and instance metadata with
 * their nested STS/SSO clients) is ~130 KB of bundle that never runs there. Only the Lambda bundles
 * use this; local runs and tests keep the SDK's full default chain.
 */
export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);
