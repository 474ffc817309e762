// @ts-check
/* global module */
/**
 * The import graph's rules over every folder (docs/architecture.md#layers), checked by `npm run lint`
 * (`npm run lint:deps`). Unlike eslint's per-file `no-restricted-imports`, dependency-cruiser resolves every
 * import, type-only and dynamic `import()` included, so a rule cannot be passed by a relative path written
 * another way or by loading a module at run time. test/unit/architecture/import-graph.test.ts plants a probe
 * in each folder and shows the rule that must catch it does.
 */

/** Folders of the production code, as path regexes. */
const F = {
  domain: '^shared/domain/',
  app: '^shared/app/',
  http: '^shared/http/',
  providers: '^shared/providers/',
  destinations: '^shared/destinations/',
  adapters: '^shared/adapters/',
  config: '^shared/config/',
  runtime: '^shared/runtime/',
  util: '^shared/util/',
  functions: '^functions/',
  infra: '^infra/',
  local: '^local/',
  console: '^console/',
  simulator: '^simulator/',
  scripts: '^scripts/',
  test: '^test/',
};
const AWS_SDK = '^node_modules/@aws-sdk/';
/**
 * What none of the deployed or shared code may import: the tools and the tests around it. Two scripts are
 * product code that lives with the tools: the console build (run by `npm start` and at synth, shipped in
 * the package) and the command-line helper it uses.
 */
const OUTSIDE_PRODUCT = ['^scripts/(?!cli\\.ts$|build-console\\.ts$)', F.test];

/** The transport and the adapters, with the SDK only adapters import: the I/O the inner layers stay clear of. */
const IO = [F.http, F.adapters, AWS_SDK];
/** What runs the relay or plays around it: entry points, the CDK app, npm start, the console, the simulator. */
const APPS = [F.functions, F.infra, F.local, F.console, F.simulator];
/** The Lambda composition root and the apps: the wiring no layer beneath it may reach. */
const WIRING = [F.runtime, ...APPS];

/**
 * A rule that `from` imports none of `to`. A folder's own path is dropped from `to` (a layer may import
 * itself), so the shared lists above serve every layer they sit beneath.
 * @param {string} name @param {string} comment @param {string} from @param {string[]} to @param {{ fromNot?: string, toNot?: string }} [except]
 */
const forbid = (name, comment, from, to, except = {}) => {
  const path = to.filter((folder) => folder !== from).join('|');
  return {
    name,
    comment,
    severity: /** @type {const} */ ('error'),
    from: except.fromNot ? { path: from, pathNot: except.fromNot } : { path: from },
    to: except.toNot ? { path, pathNot: except.toNot } : { path },
  };
};

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    forbid(
      'domain-is-pure',
      'The domain imports only shared/util (and zod): no use case, transport, provider, adapter, config, runtime or I/O.',
      F.domain,
      [
        F.app,
        F.providers,
        F.config,
        ...IO,
        ...WIRING,
        '^node_modules/@aws-lambda-powertools/',
        '^node_modules/@middy/',
        ...OUTSIDE_PRODUCT,
      ],
    ),
    forbid(
      'use-cases-depend-on-ports',
      'Use cases depend on ports: no adapter, transport, composition root, entry point or AWS SDK.',
      F.app,
      [...IO, ...WIRING, ...OUTSIDE_PRODUCT],
    ),
    forbid(
      'use-cases-name-no-provider',
      'The application layer reaches providers only through their registries and types.',
      F.app,
      [
        '^shared/providers/(?!registry\\.ts$|types\\.ts$|status-api-registry\\.ts$|registration-registry\\.ts$)',
      ],
    ),
    forbid(
      'providers-are-pure',
      'A provider folder is pure code: no use case, transport, adapter, composition root or AWS SDK.',
      F.providers,
      [F.app, ...IO, ...WIRING, ...OUTSIDE_PRODUCT],
    ),
    forbid(
      'destination-types-are-pure',
      'A destination type folder is pure code reaching the world through its ports: no use case, config, provider, transport, adapter, composition root or AWS SDK.',
      F.destinations,
      [F.app, F.config, F.providers, ...IO, ...WIRING, ...OUTSIDE_PRODUCT],
    ),
    forbid(
      'use-cases-reach-destination-types-through-the-registry',
      'The application layer reaches destination types only through their registry, ports and types.',
      F.app,
      ['^shared/destinations/(?!registry\\.ts$|ports\\.ts$|types\\.ts$)'],
    ),
    forbid(
      'config-reads-no-adapter',
      'Config loading has its secret reader injected: no adapter, transport, use case or composition root.',
      F.config,
      [F.app, ...IO, ...WIRING, ...OUTSIDE_PRODUCT],
    ),
    forbid('util-imports-nothing-of-the-relay', 'shared/util is the bottom layer.', F.util, [
      F.domain,
      F.app,
      F.providers,
      F.config,
      ...IO,
      ...WIRING,
      ...OUTSIDE_PRODUCT,
    ]),
    forbid(
      'http-is-a-transport',
      'The HTTP layer adapts requests to use cases: it does not wire adapters or reach a composition root.',
      F.http,
      [...IO, ...WIRING, ...OUTSIDE_PRODUCT],
    ),
    forbid(
      'adapters-serve-ports',
      'Adapters implement ports: no transport, composition root or entry point.',
      F.adapters,
      [F.http, ...WIRING, ...OUTSIDE_PRODUCT],
    ),
    forbid('runtime-is-the-lambda-root', 'The Lambda composition root wires shared/ only.', F.runtime, [
      ...WIRING,
      ...OUTSIDE_PRODUCT,
    ]),
    forbid(
      'functions-are-thin',
      'An entry point is a middy chain and one use case: the composition root (shared/runtime) wires the adapters.',
      F.functions,
      [F.adapters, F.domain, AWS_SDK, ...APPS, ...OUTSIDE_PRODUCT],
    ),
    forbid(
      'infra-runs-no-use-case',
      'The construct describes resources: it reads config, provider declarations and the domain, never a use case, adapter, transport or entry point.',
      F.infra,
      // The table's keys and indexes are one fact, owned by the adapter that reads and writes them; the
      // construct creates the table from it (the file imports only the SDK's types).
      [F.app, F.http, F.adapters, ...WIRING, ...OUTSIDE_PRODUCT],
      { fromNot: '^infra/lambda-shims/', toNot: '^shared/adapters/dynamodb/table\\.ts$' },
    ),
    forbid(
      'local-is-npm-start',
      'local/ wires npm start: it never reaches into the CDK app, the console sources or the scripts.',
      F.local,
      [F.infra, F.console, ...OUTSIDE_PRODUCT],
    ),
    forbid(
      'console-reads-only-answer-types',
      'The browser console imports nothing of the server but the management API answer types and the time-zone arithmetic.',
      F.console,
      [
        '^(shared/(?!app/management-answers\\.ts$|util/time-zone\\.ts$)|functions/|infra/|local/|simulator/|scripts/|test/)',
        '^node_modules/(?!axe-core/)',
      ],
    ),
    forbid(
      'console-shared-code-imports-nothing',
      'The server modules the browser console bundles import nothing: no Node built-in or relay code reaches the browser through them.',
      '^shared/(app/management-answers|util/time-zone)\\.ts$',
      ['.*'],
    ),
    forbid(
      'simulator-is-the-provider',
      "The simulator plays the providers: it does not use the relay's use cases, adapters, transport or wiring.",
      F.simulator,
      [F.app, F.http, F.adapters, ...WIRING, ...OUTSIDE_PRODUCT],
    ),
    forbid(
      'scripts-use-no-test',
      'A script is a tool a user runs: it never needs a test helper.',
      F.scripts,
      [F.test],
    ),
    forbid(
      'subscriber-kit-stands-alone',
      "The subscriber kit is a package of its own with no dependencies: its code imports nothing of the relay's.",
      '^packages/subscriber-kit/src/',
      ['^(shared|functions|infra|local|console|simulator|scripts|test)/', '^node_modules/'],
    ),
    forbid(
      'scripts-are-not-product',
      'Scripts use the product; the product never imports a script.',
      '^(shared|functions|infra|local|console|simulator)/',
      [...OUTSIDE_PRODUCT],
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|cdk\\.out|dist|\\.relay|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { err: {} },
  },
};
