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
                '^(\\.\\./)+(shared|local|functions|infra|simulator|scripts)/(?!app/management-answers$)',
              message:
                'The console runs in a browser: of the server code it reads only the API answer types (shared/app/management-answers.ts).',
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
