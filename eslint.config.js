// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.relay/', 'coverage/', 'dist/', 'packages/*/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      // Underscore-prefixed names are deliberately unused (destructuring that drops a field).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      eqeqeq: ['error', 'smart'],
      'no-console': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  // No test depends on the machine's speed (issue 32): no wall-clock measurement to compare, and no
  // fixed sleep before an assertion. Drive an injected clock or fake timers, or wait for an event that
  // proves the input was processed (docs/development.md#testing-on-a-busy-machine). Probed in
  // test/unit/architecture/test-timing-rules.test.ts.
  {
    files: ['test/**/*.ts', 'packages/*/test/**/*.ts'],
    ignores: ['test/helpers/cpu-meter.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='performance'][callee.property.name='now']",
          message:
            'No wall-clock measurement in a test: assert the mechanism (the budget on an injected clock, a deadline timer on fake timers, the outcome it gives), not how long it took.',
        },
        {
          selector: "MemberExpression[object.name='process'][property.name='hrtime']",
          message:
            'No wall-clock measurement in a test: assert the mechanism (the budget on an injected clock, a deadline timer on fake timers, the outcome it gives), not how long it took.',
        },
        {
          selector:
            "BinaryExpression[operator='-'][left.callee.object.name='Date'][left.callee.property.name='now']:matches([right.type='Identifier'], [right.type='MemberExpression'])",
          message:
            'No elapsed wall-clock time in a test: assert the mechanism (the budget on an injected clock, a deadline timer on fake timers, the outcome it gives), not how long it took.',
        },
        {
          selector:
            "ExpressionStatement[expression.type='AwaitExpression']:matches([expression.argument.callee.name=/^(sleep|delay|wait|pause|setTimeout)$/], [expression.argument.callee.name='Promise']:has(CallExpression[callee.name='setTimeout'])) ~ ExpressionStatement:has(CallExpression[callee.name='expect'])",
          message:
            'No fixed sleep before an assertion: drive the clock past the deadline, or wait for an event that proves the input was processed (vi.waitFor on a positive condition), then assert.',
        },
      ],
    },
  },
  // Functions short enough to read in one screen (issue 32): over 80 lines, split along the seams.
  {
    files: ['shared/**/*.ts', 'infra/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Exceptions, each with its reason. Temporary ones name who is splitting the file or why it waits;
    // remove a line when its file is split.
    files: [
      // Declarative: one object literal of the status API's calls per provider (closures sharing a token cache).
      'shared/providers/airtel/api-client.ts',
      'shared/providers/daraja/api-client.ts',
      'shared/providers/momo/api-client.ts',
      // Declarative: the config schema's cross-field checks and the CDK resource declarations.
      'infra/relay/validate.ts',
      'infra/relay/nag-suppressions.ts',
      'infra/edge-web-acl.ts',
    ],
    rules: { 'max-lines-per-function': 'off' },
  },
  // The dependency rules of docs/architecture.md#layers, enforced: `npm run lint` fails when one breaks.
  {
    files: ['shared/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./(app|adapters|http|providers|config|runtime)(/|$)',
              message: 'The domain is pure: it imports only shared/util (docs/architecture.md#layers).',
            },
            { regex: '^@aws-sdk/|^@aws-lambda-powertools/|^@middy/', message: 'The domain does no I/O.' },
          ],
        },
      ],
    },
  },
  {
    files: ['shared/app/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(adapters|http|runtime)(/|$)',
              message:
                'Use cases depend on ports, not on adapters, transports or the composition root (docs/architecture.md#layers).',
            },
            {
              regex: '^(\\.\\./)+providers/(?!registry$|types$|status-api-registry$|registration-registry$)',
              message:
                'The application layer names no provider: reach providers through providers/registry and providers/types.',
            },
            { regex: '^@aws-sdk/', message: 'Only adapters import the AWS SDK.' },
          ],
        },
      ],
    },
  },
  {
    files: ['shared/providers/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(app|adapters|runtime)(/|$)',
              message: 'A provider is pure code: no use cases, adapters or composition root.',
            },
            { regex: '^@aws-sdk/', message: 'Only adapters import the AWS SDK.' },
          ],
        },
      ],
    },
  },
  {
    files: ['shared/destinations/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(app|adapters|http|runtime|config|providers)(/|$)',
              message:
                'A destination type is pure code: it reaches the world through its ports (shared/destinations/ports.ts).',
            },
            { regex: '^@aws-sdk/', message: 'Only adapters import the AWS SDK.' },
          ],
        },
      ],
    },
  },
  {
    files: ['shared/config/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(adapters|http|runtime)(/|$)',
              message:
                'Config parsing uses ports: the composition roots inject its secret reader (docs/architecture.md#layers).',
            },
            { regex: '^@aws-sdk/', message: 'Only adapters import the AWS SDK.' },
          ],
        },
      ],
    },
  },
  {
    files: ['shared/**/*.ts'],
    ignores: [
      'shared/adapters/**',
      'shared/domain/**',
      'shared/app/**',
      'shared/providers/**',
      'shared/destinations/**',
      'shared/config/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^@aws-sdk/', message: 'Only adapters import the AWS SDK.' }] },
      ],
    },
  },
  {
    // The API's answer types are shared with the browser console, so they must stay free of server code.
    files: ['shared/app/management-answers.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '.*',
              message:
                'management-answers.ts is types only and imports nothing: the browser console type-checks against it.',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSImportType',
          message:
            'management-answers.ts is types only and imports nothing, not even a type through import().',
        },
      ],
    },
  },
  {
    files: ['console/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex:
                '^(\\.\\./)+(shared|local|functions|infra|simulator|scripts)/(?!app/management-answers$|util/time-zone$)',
              message:
                'The console runs in a browser: of the server code it reads only the API answer types (shared/app/management-answers.ts) and the import-free time-zone arithmetic (shared/util/time-zone.ts).',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSImportType',
          message:
            'Import the API answer types from shared/app/management-answers.ts by name: an import() type gets past the import rules.',
        },
      ],
    },
  },
);
