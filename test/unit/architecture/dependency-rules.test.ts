import { ESLint } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const eslint = new ESLint({ cwd: ROOT });

/** How many dependency-rule findings (import rules, import() types) ESLint reports for `code` placed at `file`. */
async function restrictedImports(file: string, code: string): Promise<number> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, file) });
  return result!.messages.filter(
    (m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax',
  ).length;
}

describe('the dependency rules of docs/architecture.md are lint rules', () => {
  it.each([
    [
      'the domain importing an adapter',
      'shared/domain/probe.ts',
      "import '../adapters/dynamodb/relay-store';",
    ],
    ['the domain importing a use case', 'shared/domain/probe.ts', "import '../app/ports';"],
    ['the domain importing the AWS SDK', 'shared/domain/probe.ts', "import '@aws-sdk/client-dynamodb';"],
    [
      'a use case naming a provider',
      'shared/app/callbacks/probe.ts',
      "import '../../providers/momo/schema';",
    ],
    ['a use case importing the HTTP layer', 'shared/app/callbacks/probe.ts', "import '../../http/types';"],
    ['a use case importing an adapter', 'shared/app/probe.ts', "import '../adapters/memory/memory-store';"],
    ['a provider importing a use case', 'shared/providers/momo/probe.ts', "import '../../app/ports';"],
    [
      'config loading importing an adapter',
      'shared/config/probe.ts',
      "import '../adapters/secrets/secrets-manager';",
    ],
    [
      'config loading importing the AWS SDK',
      'shared/config/probe.ts',
      "import '@aws-sdk/client-secrets-manager';",
    ],
    [
      'shared code outside the adapters importing the AWS SDK',
      'shared/http/probe.ts',
      "import '@aws-sdk/client-sqs';",
    ],
    [
      'the browser console importing server code',
      'console/views/probe.ts',
      "import type { TransactionSummary } from '../../shared/app/console/console-query';",
    ],
    [
      'the browser console importing another utility',
      'console/probe.ts',
      "import { maskMsisdn } from '../shared/util/mask';",
    ],
    [
      'the API answer types importing anything',
      'shared/app/management-answers.ts',
      "import type { TransactionRecord } from './../domain/transaction';",
    ],
    [
      'the API answer types reaching a type through import()',
      'shared/app/management-answers.ts',
      "export type Record = import('./../domain/transaction').TransactionRecord;",
    ],
    [
      'the browser console reaching server types through import()',
      'console/views/probe.ts',
      "export type Summary = import('../../shared/app/console/console-query').TransactionSummary;",
    ],
  ])('fails the lint on %s', async (_what, file, code) => {
    expect(await restrictedImports(file, code)).toBe(1);
  });

  it.each([
    [
      'a use case reaching providers through the registry',
      'shared/app/callbacks/probe.ts',
      "import '../../providers/registry';",
    ],
    ['a use case importing the ports', 'shared/app/callbacks/probe.ts', "import '../ports';"],
    [
      'the browser console reading the API answer types',
      'console/views/probe.ts',
      "import type { ConsoleReport } from '../../shared/app/management-answers';",
    ],
    [
      'the browser console using the relay’s time-zone arithmetic',
      'console/probe.ts',
      "import { zonedAt } from '../shared/util/time-zone';",
    ],
    ['the domain importing a utility', 'shared/domain/probe.ts', "import '../util/ids';"],
    [
      'an adapter importing the AWS SDK',
      'shared/adapters/dynamodb/probe.ts',
      "import '@aws-sdk/client-dynamodb';",
    ],
  ])('allows %s', async (_what, file, code) => {
    expect(await restrictedImports(file, code)).toBe(0);
  });
});
