import { fileURLToPath } from 'node:url';

/**
 * The ONE place the Lambda bundle options live: the CDK construct (NodejsFunction) and
 * `scripts/bundle-size.ts` (size + cold-init measurement) both read them, so what is measured is
 * what is deployed. No aws-cdk-lib import here: the script stays light.
 */

/** Repository root (this file is `<root>/infra/bundling.ts`). */
export const PROJECT_ROOT: string = fileURLToPath(new URL('..', import.meta.url));

export type RelayFunctionId =
  | 'callback'
  | 'management'
  | 'outbox-publisher'
  | 'poller'
  | 'transaction-initiated'
  | 'buffer-consumer'
  | 'statements'
  | 'delivery';

/** Lambda entry points, relative to the repository root. */
export const RELAY_FUNCTIONS: Record<RelayFunctionId, { entry: string; serviceName: string }> = {
  callback: { entry: 'functions/callback/index.ts', serviceName: 'relay-callback' },
  management: { entry: 'functions/management/index.ts', serviceName: 'relay-management' },
  'outbox-publisher': { entry: 'functions/outbox-publisher/index.ts', serviceName: 'relay-outbox-publisher' },
  poller: { entry: 'functions/poller/index.ts', serviceName: 'relay-poller' },
  'transaction-initiated': {
    entry: 'functions/transaction-initiated/index.ts',
    serviceName: 'relay-transaction-initiated',
  },
  'buffer-consumer': { entry: 'functions/buffer-consumer/index.ts', serviceName: 'relay-buffer-consumer' },
  statements: { entry: 'functions/statements/index.ts', serviceName: 'relay-statements' },
  // Only deployed when the config has webhook destinations (infra/relay/delivery.ts).
  delivery: { entry: 'functions/delivery/index.ts', serviceName: 'relay-delivery' },
};

/**
 * esbuild settings shared by the construct and the measurement script.
 *
 * The AWS SDK v3 is bundled, not left to the Node.js 22 runtime's copy (`external: []`): one minified
 * file loads about twice as fast as resolving the SDK's hundreds of modules from node_modules
 * (measured by scripts/bundle-size.ts), and the deployed code runs the SDK version the tests ran.
 */
export const BUNDLE_OPTIONS = {
  target: 'node22',
  platform: 'node',
  format: 'esm',
  outExtension: '.mjs',
  minify: true,
  sourcemap: true,
  /** Stack traces only need the mappings (NODE_OPTIONS=--enable-source-maps); keeps the asset small. */
  sourcesContent: false,
  /** Prefer packages' ESM builds: they tree-shake (the SDK's dist-es, middy, Powertools). */
  mainFields: ['module', 'main'],
  external: [] as string[],
  /**
   * Module replacements, paths relative to PROJECT_ROOT (esbuild's working directory in the construct
   * and in the script). The SDK's default credential chain becomes env-only: in Lambda the role's
   * credentials are always in the environment, and the rest of the chain (SSO, profiles, STS web
   * identity, container/instance metadata and their nested clients) is ~130 KB that never runs.
   */
  alias: {
    '@aws-sdk/credential-provider-node': './infra/lambda-shims/credentials-from-env.ts',
    // DynamoDB endpoint discovery, resolved by the client but read by none of its commands (~1.8 KB
    // per DynamoDB bundle with its endpoint cache and mnemonist's LRU; see the shim).
    '@aws-sdk/middleware-endpoint-discovery': './infra/lambda-shims/no-endpoint-discovery.ts',
    // The event-stream codec, loaded only by streaming operations none of our clients has (~13 KB per bundle).
    '@smithy/core/event-streams': './infra/lambda-shims/no-event-streams.ts',
    // Sha256 and Md5 on node:crypto without the SDK's pure-JS fallbacks (~5 KB per bundle; see the shim).
    '@smithy/core/checksum': './infra/lambda-shims/native-checksums.ts',
    // Secrets Manager's client and GetSecretValue without the aggregated client, its 22 other commands and
    // their schemas (~11.6 KB per bundle; see the shim).
    '@aws-sdk/client-secrets-manager': './infra/lambda-shims/secrets-manager-client.ts',
    // Powertools Metrics as the metrics adapter uses it, EMF lines and nothing more (~7-9 KB per bundle;
    // see the shim): every function runs one invocation per instance, which is what its stores assume.
    '@aws-lambda-powertools/metrics': './infra/lambda-shims/emf-metrics.ts',
    // Powertools Logger as the functions use it: the relay's line, level and Lambda context, without log
    // buffering, debug sampling, event logging or child loggers (~20 KB per bundle; see the shim).
    '@aws-lambda-powertools/logger': './infra/lambda-shims/powertools-logger.ts',
    '@aws-lambda-powertools/logger/middleware': './infra/lambda-shims/powertools-logger-middleware.ts',
    // DynamoDB's client and document client with the commands and the error class the relay's stores send
    // and tell apart, without every DynamoDB operation's error class and schema and the package.json the
    // generated client imports (~20 KB per bundle; see the shim). The callback path's bundles take a
    // slimmer one (FUNCTION_ALIASES).
    '@aws-sdk/client-dynamodb': './infra/lambda-shims/dynamodb-store-client.ts',
    '@aws-sdk/lib-dynamodb': './infra/lambda-shims/dynamodb-store-document-client.ts',
  } as Record<string, string>,
  /**
   * ESM output needs a real `require` for the few CommonJS dependencies that load Node built-ins
   * with `require()` at run time (esbuild's shim throws "Dynamic require is not supported" otherwise).
   */
  banner:
    "import { createRequire as __relayCreateRequire } from 'node:module'; const require = __relayCreateRequire(import.meta.url);",
} as const;
type BundleOptions = typeof BUNDLE_OPTIONS;

/**
 * Module replacements of one function's bundle only, on top of BUNDLE_OPTIONS.alias: a slim client where
 * the function sends fewer commands than the others that share the package. The callback function sends
 * one SQS command (SendMessage, the ingress buffer): infra/lambda-shims/sqs-send-message.ts gives it the
 * client without the error classes and schemas of SQS's other operations (~18 KB). The buffer consumer,
 * the management API and the delivery function send a few more: infra/lambda-shims/sqs-client.ts, the
 * same client with those commands alone (~20 KB each). The callback path's store (the callback
 * and the buffer consumer) sends four DynamoDB item commands: infra/lambda-shims/dynamodb-client.ts (and
 * the document client beside it) gives it those alone, without the store client's two more commands and
 * error class that every other bundle has (BUNDLE_OPTIONS.alias).
 */
const CALLBACK_PATH_DYNAMODB = {
  '@aws-sdk/client-dynamodb': './infra/lambda-shims/dynamodb-client.ts',
  '@aws-sdk/lib-dynamodb': './infra/lambda-shims/dynamodb-document-client.ts',
};
const SQS_CLIENT = { '@aws-sdk/client-sqs': './infra/lambda-shims/sqs-client.ts' };
const FUNCTION_ALIASES: Partial<Record<RelayFunctionId, Record<string, string>>> = {
  callback: { '@aws-sdk/client-sqs': './infra/lambda-shims/sqs-send-message.ts', ...CALLBACK_PATH_DYNAMODB },
  'buffer-consumer': { ...SQS_CLIENT, ...CALLBACK_PATH_DYNAMODB },
  management: SQS_CLIENT,
  delivery: SQS_CLIENT,
};

/** The module replacements of `name`'s bundle: the shared ones and its own. */
export function bundleAliases(name: RelayFunctionId): Record<string, string> {
  return { ...BUNDLE_OPTIONS.alias, ...FUNCTION_ALIASES[name] };
}

/**
 * Budget from the design contract ("Performance targets"). tsconfig.json sets `alwaysStrict: false`
 * for this: every file is an ES module, strict by definition, and with `strict` alone esbuild repeats a
 * "use strict" directive in each of the ~340 modules of a bundle (4 KB of each function's budget).
 */
export const BUNDLE_BUDGET: { readonly maxBytes: number; readonly maxColdInitMs: 150 } = {
  maxBytes: 500 * 1024,
  maxColdInitMs: 150,
};

/**
 * Issue 32's size target for the callback function, the one on the providers' ack path: 400 KB (issue 19
 * had 450 KB). `npm run bench` prints the callback bundle against it. Met since the callback parses only
 * the config sections it reads (shared/config/callback-config.ts); BUNDLE_MAX_BYTES holds it to what it
 * weighs now, below this target.
 */
export const CALLBACK_BUNDLE_TARGET_BYTES: number = 400 * 1024;

/**
 * Size ceiling per function, enforced by test/infra/bundle-size.test.ts and `scripts/bundle-size.ts
 * --check` (every function): each function's size when last measured (docs/results.md, "bundles"),
 * rounded up to the next KB, so a change that adds bytes fails and one that removes some lowers the
 * ceiling with it. Never above BUNDLE_BUDGET.maxBytes but for the management API, still over the budget.
 * The callback's composition root is the callback one (shared/runtime/lambda-callback.ts: the callback
 * path's store, DynamoTransactionStore, without the other ports' reads and writes; no statement or webhook
 * delivery adapters; only the config sections the callback path reads, shared/config/callback-config.ts,
 * validated at cold start), and its SQS, DynamoDB and Secrets Manager clients are the slim ones
 * (infra/lambda-shims/). The SDK stays bundled even so (see BUNDLE_OPTIONS): leaving it to the runtime's
 * copy would meet the target at once, but runs an SDK version no test ran (the runtime's, older than the
 * one this code is written against, and changed by AWS without a deploy), without the shims above
 * (Powertools' and AWS's advice: bundle to pin the version).
 */
export const BUNDLE_MAX_BYTES: Readonly<Record<RelayFunctionId, number>> = {
  // Issue 32's 400 KB target with room since the item dictionaries are kept deflated and zod's util and
  // iso modules are no longer kept whole (shared/util/zod.ts): 400.0 -> 389.5 KB; then 390.2 KB with the
  // held reversal's early answers and receipt budget and national-format payer numbers; 391.3 KB with a
  // wrong path secret kept as {wrong-secret} and the deciding receipts kept past the budget; 392.9 KB with
  // the same delivery again a no-op wherever it was kept, and non-final claims adopting nothing; 393.1 KB
  // with a claim adopting no payer, bill reference or attributes and forged receipt claims never evicting.
  callback: 394 * 1024,
  // Over the 500 KB budget: its routes all in one function (issue 32 item 7 left open: docs/results.md).
  // Its check now reaches the poller's held-reversal look, which applies a reversal through the fact path.
  // The slim SQS client (infra/lambda-shims/sqs-client.ts): 599.5 -> 583.5 KB; 585.6 KB with four eyes on
  // accepting a quarantined callback and the partner's text masked in answers; 587.4 KB with the four-eyes
  // rule weighed in the write and a success resolved by hand stating its amount; 588.1 KB with strict
  // signing secrets; 589.5 KB with four eyes over statement files.
  management: 590 * 1024,
  'outbox-publisher': 199 * 1024,
  // Back under the 500 KB budget: the slim DynamoDB store client, the deflated item dictionaries and zod's
  // util and iso modules no longer kept whole (514.7 -> 486.2 KB).
  // 487.2 KB with an unconfirmed success's claim dropped only when refuted (this session's reviews);
  // 488.1 KB with an unconfirmed report's id kept as a receipt claim and asked about after the verdict.
  // 490.3 KB with four eyes over statement files (the pull shares the statement ledger).
  poller: 491 * 1024,
  // 392.1 KB likewise; 393.0 KB with a published orphan success kept SUCCEEDED on registration.
  // 394.1 KB with this session's decision fixes (claims take nothing, replays no news).
  'transaction-initiated': 395 * 1024,
  // The slim SQS client (infra/lambda-shims/sqs-client.ts): 403.6 -> 387.7 KB; 388.6 KB with the callback's
  // {wrong-secret} and deciding-receipt rules; 389.1 KB with an unconfirmed report's id kept as a claim.
  // 390.4 KB with the same delivery again a no-op wherever it was kept.
  'buffer-consumer': 391 * 1024,
  // 416.2 KB with a failed import's report (the upload is never silent).
  // 419.4 KB with an importing report first and four eyes over statement files.
  statements: 420 * 1024,
  // The slim SQS client (infra/lambda-shims/sqs-client.ts): 397.0 -> 381.3 KB.
  delivery: 382 * 1024,
};

/**
 * The esbuild options of one function's bundle, as the CDK construct builds it (BUNDLE_OPTIONS): for the
 * measurement script and the tests that build and run the bundles (test/integration/callback-bundle.test.ts).
 * Plain data, so this file needs no esbuild import.
 */
export function relayBuildOptions(
  name: RelayFunctionId,
  outfile: string,
): {
  absWorkingDir: string;
  entryPoints: string[];
  outfile: string;
  bundle: boolean;
  platform: BundleOptions['platform'];
  target: BundleOptions['target'];
  format: BundleOptions['format'];
  minify: BundleOptions['minify'];
  sourcemap: BundleOptions['sourcemap'];
  sourcesContent: BundleOptions['sourcesContent'];
  mainFields: BundleOptions['mainFields'][number][];
  external: string[];
  alias: Record<string, string>;
  banner: { js: BundleOptions['banner'] };
  tsconfig: string;
  metafile: boolean;
  logLevel: 'warning';
} {
  return {
    absWorkingDir: PROJECT_ROOT,
    entryPoints: [`${PROJECT_ROOT}${RELAY_FUNCTIONS[name].entry}`] as string[],
    outfile,
    bundle: true,
    platform: BUNDLE_OPTIONS.platform,
    target: BUNDLE_OPTIONS.target,
    format: BUNDLE_OPTIONS.format,
    minify: BUNDLE_OPTIONS.minify,
    sourcemap: BUNDLE_OPTIONS.sourcemap,
    sourcesContent: BUNDLE_OPTIONS.sourcesContent,
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    external: [...BUNDLE_OPTIONS.external],
    alias: bundleAliases(name),
    banner: { js: BUNDLE_OPTIONS.banner },
    tsconfig: `${PROJECT_ROOT}tsconfig.json`,
    metafile: true,
    logLevel: 'warning',
  };
}

/**
 * Where the packed library keeps its prebuilt bundles: `dist/assets/` beside the compiled library
 * (`dist/infra/index.js`). From the sources (`infra/bundling.ts`) this is `<root>/assets/`, which never
 * exists, so the repository always bundles its own sources, even after an `npm pack` left a `dist/`.
 */
export const PREBUILT_ASSETS_DIR: string = fileURLToPath(new URL('../assets/', import.meta.url));

/** The file in PREBUILT_ASSETS_DIR listing what scripts/prebuild-assets.ts built. */
export const PREBUILT_MANIFEST = 'manifest.json';

/** Contents of PREBUILT_MANIFEST: directories relative to PREBUILT_ASSETS_DIR. */
export interface PrebuiltManifest {
  /** Each function's directory, holding `index.mjs` (handler `index.handler`) and its source map. */
  readonly functions: Partial<Record<RelayFunctionId, string>>;
  /** The tracing layer's directory (`nodejs/node_modules/relay-tracing`). */
  readonly tracingLayer: string;
}
