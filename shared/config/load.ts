import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { ConfigError } from '../domain/errors';
import { findProvider, PROVIDERS } from '../providers/registry';
import { checkUrlRules, describeViolations } from '../util/url-rules';
import {
  accountKey,
  allowNoPathSecretSchema,
  pathSecretSchema,
  type RelayConfig,
  type ResolvedAccount,
  relayConfigCoreSchema,
} from './schema';

const ACCOUNT_ID = /^[A-Za-z0-9_-]{1,64}$/;

function formatIssues(prefix: string, error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
      return `${path || '(root)'}: ${issue.message}`;
    })
    .join('\n');
}

/** Validates a parsed config object. Every problem is reported with the dotted key that caused it. */
export function parseConfig(input: unknown): RelayConfig {
  const core = relayConfigCoreSchema.safeParse(input);
  if (!core.success) throw new ConfigError(`Invalid relay config:\n${formatIssues('', core.error)}`);
  const problems: string[] = [];
  const accounts = new Map<string, ResolvedAccount>();

  for (const [providerId, byId] of Object.entries(core.data.accounts)) {
    const provider = findProvider(providerId);
    if (!provider) {
      problems.push(
        `accounts.${providerId}: unknown provider (known: ${PROVIDERS.map((p) => p.id).join(', ')})`,
      );
      continue;
    }
    const schema = provider.accountSchema
      .extend({
        pathSecret: pathSecretSchema.optional(),
        allowNoPathSecret: allowNoPathSecretSchema.optional(),
      })
      .strict();
    for (const [accountId, raw] of Object.entries(byId)) {
      const prefix = `accounts.${providerId}.${accountId}`;
      if (!ACCOUNT_ID.test(accountId)) {
        problems.push(`${prefix}: account ids may only use A-Z a-z 0-9 _ - (max 64)`);
        continue;
      }
      const parsed = schema.safeParse(raw);
      if (!parsed.success) {
        problems.push(formatIssues(prefix, parsed.error));
        continue;
      }
      const { pathSecret, allowNoPathSecret, ...settings } = parsed.data as Record<string, unknown> & {
        pathSecret?: string;
        allowNoPathSecret?: string;
      };
      if (pathSecret && allowNoPathSecret !== undefined) {
        problems.push(`${prefix}.allowNoPathSecret: the account has a pathSecret; remove allowNoPathSecret`);
        continue;
      }
      const account: ResolvedAccount = { provider: providerId, id: accountId, pathSecret, settings };
      if (allowNoPathSecret !== undefined) account.allowNoPathSecret = allowNoPathSecret;
      for (const { key, url } of provider.configuredUrls?.(settings as never) ?? []) {
        const violations = checkUrlRules(url, core.data.urlRules);
        if (violations.length) problems.push(`${prefix}.${key}: ${describeViolations(violations)}`);
      }
      // The URL the relay will hand out for this account must itself pass the rules.
      const sample = `${core.data.publicBaseUrl.replace(/\/$/, '')}/v1/${providerId}/${accountId}${pathSecret ? `/${pathSecret}` : ''}/`;
      const sampleViolations = checkUrlRules(sample, core.data.urlRules);
      if (sampleViolations.length) {
        problems.push(
          `${prefix}: callback URLs built for this account break the URL rules: ${describeViolations(sampleViolations)}`,
        );
      }
      accounts.set(accountKey(providerId, accountId), account);
    }
  }

  const baseViolations = checkUrlRules(core.data.publicBaseUrl, core.data.urlRules);
  if (baseViolations.length) problems.push(`publicBaseUrl: ${describeViolations(baseViolations)}`);
  if (core.data.management.auth === 'bearer' && !core.data.management.bearerToken) {
    problems.push('management.bearerToken: required when management.auth is "bearer"');
  }
  if (problems.length) throw new ConfigError(`Invalid relay config:\n${problems.join('\n')}`);
  return { ...core.data, accounts };
}

/**
 * Reads the config once per process (Lambda cold start or `npm start`): inline JSON in
 * RELAY_CONFIG_JSON wins, else the file named by RELAY_CONFIG, else `fallbackPath`.
 * Asynchronous so that secrets can come from a secret store at cold start; `parseConfig` stays
 * synchronous (it only validates).
 */
export async function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  fallbackPath?: string,
): Promise<RelayConfig> {
  let text: string;
  let source: string;
  if (env.RELAY_CONFIG_JSON) {
    text = env.RELAY_CONFIG_JSON;
    source = 'RELAY_CONFIG_JSON';
  } else {
    const path = env.RELAY_CONFIG ?? fallbackPath;
    if (!path)
      throw new ConfigError('No config: set RELAY_CONFIG (a file path) or RELAY_CONFIG_JSON (inline JSON)');
    source = path;
    try {
      text = await readFile(path, 'utf8');
    } catch (cause) {
      throw new ConfigError(`RELAY_CONFIG: cannot read ${path}: ${(cause as Error).message}`, { cause });
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new ConfigError(`${source}: not valid JSON: ${(cause as Error).message}`, { cause });
  }
  try {
    return parseConfig(parsed);
  } catch (error) {
    if (error instanceof ConfigError)
      throw new ConfigError(`${error.message}\n(config source: ${source})`, { cause: error });
    throw error;
  }
}

/** An account of a provider whose callbacks carry no other authentication, running without a path secret. */
export interface AccountWithoutPathSecret {
  provider: string;
  /** The provider's display name (e.g. "MTN MoMo"). */
  providerName: string;
  id: string;
  /** Dotted config key of the missing secret: `accounts.<provider>.<id>.pathSecret`. */
  key: string;
  /** The account's `allowNoPathSecret` reason, when it opted out explicitly. */
  allowNoPathSecret: string | undefined;
}

/**
 * Accounts of providers that need a path secret (`ProviderModule.pathSecretRequired`: MoMo, Daraja)
 * configured without one, opted out or not. `npm start` warns about them; `cdk synth` refuses those
 * that did not opt out.
 */
export function accountsWithoutPathSecret(config: RelayConfig): AccountWithoutPathSecret[] {
  const found: AccountWithoutPathSecret[] = [];
  for (const account of config.accounts.values()) {
    const provider = findProvider(account.provider);
    if (!provider?.pathSecretRequired || account.pathSecret) continue;
    found.push({
      provider: account.provider,
      providerName: provider.displayName,
      id: account.id,
      key: `accounts.${account.provider}.${account.id}.pathSecret`,
      allowNoPathSecret: account.allowNoPathSecret,
    });
  }
  return found;
}

/** One line per account without a path secret that did not opt out: what `npm start` prints. */
export function pathSecretWarnings(config: RelayConfig): string[] {
  return accountsWithoutPathSecret(config)
    .filter((a) => a.allowNoPathSecret === undefined)
    .map(
      (a) =>
        `WARNING ${a.provider}/${a.id} has no pathSecret: anyone who knows a reference can post a callback ` +
        `to /v1/${a.provider}/${a.id}/... (${a.providerName} callbacks carry no other authentication). ` +
        `Set ${a.key} (e.g. openssl rand -hex 16) or opt out with ` +
        `accounts.${a.provider}.${a.id}.allowNoPathSecret: "<reason>"; cdk synth refuses the account otherwise.`,
    );
}
