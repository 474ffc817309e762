import { readFile } from 'node:fs/promises';
import * as z from '../util/zod';
import type { SecretReader } from '../adapters/secrets/secrets-manager';
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
import { registerSecretValues } from './secrets';

const ACCOUNT_ID = /^[A-Za-z0-9_-]{1,64}$/;

function formatIssues(prefix: string, issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
      return `${path || '(root)'}: ${issue.message}`;
    })
    .join('\n');
}

/**
 * `accounts.<provider>.<id>.secretId`: a Secrets Manager secret (ARN or name) whose JSON object is
 * deep-merged into the account's settings when the config is loaded (shared/config/load.ts loadConfig).
 */
export const secretIdSchema = z
  .string()
  .check(
    z.regex(
      /^[A-Za-z0-9/_+=.@:-]{1,2048}$/,
      'a Secrets Manager secret ARN or name (A-Z a-z 0-9 / _ + = . @ -)',
    ),
  );

/** An account as parsed: a ResolvedAccount plus the secret its settings come from, if any. */
export type LoadedAccount = ResolvedAccount & { secretId?: string };

/** The account's `secretId`, when its settings come (partly) from a secret. */
export function accountSecretId(account: ResolvedAccount): string | undefined {
  return (account as LoadedAccount).secretId;
}

export interface ParseConfigOptions {
  /**
   * The accounts' `secretId` secrets have not been read (cdk synth): a setting absent from an account
   * that names a secret is assumed to come from it, so "required" problems about absent keys are not
   * reported for that account (loadConfig validates the merged settings at cold start). Such an account
   * keeps its settings as written (no defaults). Never for a config the relay runs with.
   */
  secretsUnresolved?: boolean;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Validates a parsed config object. Every problem is reported with the dotted key that caused it. */
export function parseConfig(input: unknown, options: ParseConfigOptions = {}): RelayConfig {
  const core = relayConfigCoreSchema.safeParse(input);
  if (!core.success) throw new ConfigError(`Invalid relay config:\n${formatIssues('', core.error.issues)}`);
  const problems: string[] = [];
  const accounts = new Map<string, ResolvedAccount>();
  for (const providerId of Object.keys(core.data.ackBudgets)) {
    // A misspelt provider would silently leave the real one on its defaults.
    if (!findProvider(providerId))
      problems.push(
        `ackBudgets.${providerId}: unknown provider (known: ${PROVIDERS.map((p) => p.id).join(', ')})`,
      );
  }

  for (const [providerId, byId] of Object.entries(core.data.accounts)) {
    const provider = findProvider(providerId);
    if (!provider) {
      problems.push(
        `accounts.${providerId}: unknown provider (known: ${PROVIDERS.map((p) => p.id).join(', ')})`,
      );
      continue;
    }
    const schema = z.catchall(
      z.extend(provider.accountSchema, {
        pathSecret: z.optional(pathSecretSchema),
        allowNoPathSecret: z.optional(allowNoPathSecretSchema),
        secretId: z.optional(secretIdSchema),
      }),
      z.never(), // strict: an unknown key is an error
    );
    for (const [accountId, raw] of Object.entries(byId)) {
      const prefix = `accounts.${providerId}.${accountId}`;
      if (!ACCOUNT_ID.test(accountId)) {
        problems.push(`${prefix}: account ids may only use A-Z a-z 0-9 _ - (max 64)`);
        continue;
      }
      const parsed = schema.safeParse(raw);
      let data: Record<string, unknown>;
      let checked = true;
      if (parsed.success) {
        data = parsed.data as Record<string, unknown>;
      } else {
        // At synth, a key absent from an account that names a secret may live in the secret.
        const remaining =
          options.secretsUnresolved && isPlainObject(raw) && typeof raw.secretId === 'string'
            ? parsed.error.issues.filter((issue) => valueAt(raw, issue.path) !== undefined)
            : parsed.error.issues;
        if (remaining.length) {
          problems.push(formatIssues(prefix, remaining));
          continue;
        }
        data = { ...(raw as Record<string, unknown>) };
        checked = false;
      }
      const { pathSecret, allowNoPathSecret, secretId, ...settings } = data as Record<string, unknown> & {
        pathSecret?: string;
        allowNoPathSecret?: string;
        secretId?: string;
      };
      if (pathSecret && allowNoPathSecret !== undefined) {
        problems.push(`${prefix}.allowNoPathSecret: the account has a pathSecret; remove allowNoPathSecret`);
        continue;
      }
      const account: LoadedAccount = { provider: providerId, id: accountId, pathSecret, settings };
      if (allowNoPathSecret !== undefined) account.allowNoPathSecret = allowNoPathSecret;
      if (secretId !== undefined) account.secretId = secretId;
      let urls: { key: string; url: string }[] = [];
      try {
        urls = provider.configuredUrls?.(settings as never) ?? [];
      } catch (error) {
        // Settings checked only in part (secrets unresolved) may lack what the provider reads.
        if (checked) throw error;
      }
      for (const { key, url } of urls) {
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

export interface LoadConfigOptions {
  /**
   * Reads the accounts' `secretId` secrets. @default Secrets Manager (one client and TTL cache per
   * process, created only when an account names a secret)
   */
  readSecret?: SecretReader;
}

/** What one account's secret contributed: its string values, all of them scrubbed from logs. */
export interface MergedSecrets {
  /** The config with every account's secret deep-merged into its settings (`secretId` kept). */
  config: unknown;
  /** Per account key (`<provider>/<id>`): every string value that came from its secret. */
  values: Map<string, string[]>;
}

/** Objects merged member by member; anything else (strings, numbers, arrays) taken from the secret. */
function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return out;
}

function stringLeaves(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) stringLeaves(item, into);
  else if (isPlainObject(value)) for (const item of Object.values(value)) stringLeaves(item, into);
  return into;
}

/**
 * Reads every account's `secretId` secret (a JSON object shaped like the account's settings, e.g.
 * `{"pathSecret":"…","callbackKey":"…","api":{"consumerKey":"…","consumerSecret":"…"}}`) and deep-merges
 * it into the account, the secret winning. Every problem names the account and the secret id, never a
 * value. A config without `secretId` comes back as it was, without any reader being created.
 */
export async function mergeAccountSecrets(input: unknown, readSecret?: SecretReader): Promise<MergedSecrets> {
  const values = new Map<string, string[]>();
  const wanted: Array<{ provider: string; id: string; secretId: string }> = [];
  const accounts = isPlainObject(input) && isPlainObject(input.accounts) ? input.accounts : {};
  for (const [provider, byId] of Object.entries(accounts)) {
    if (!isPlainObject(byId)) continue;
    for (const [id, raw] of Object.entries(byId)) {
      // A malformed secretId is left for parseConfig to report with its key.
      if (
        isPlainObject(raw) &&
        typeof raw.secretId === 'string' &&
        secretIdSchema.safeParse(raw.secretId).success
      )
        wanted.push({ provider, id, secretId: raw.secretId });
    }
  }
  if (wanted.length === 0) return { config: input, values };

  const read = readSecret ?? (await import('../adapters/secrets/secrets-manager')).sharedSecretReader();
  const problems: string[] = [];
  const merged = structuredClone(input) as {
    accounts: Record<string, Record<string, Record<string, unknown>>>;
  };
  await Promise.all(
    wanted.map(async ({ provider, id, secretId }) => {
      const key = `accounts.${provider}.${id}.secretId`;
      let text: string;
      try {
        text = await read(secretId);
      } catch (error) {
        const message = (error as Error).message;
        problems.push(
          `${key}: ${message.includes(secretId) ? message : `cannot read secret "${secretId}": ${message}`}`,
        );
        return;
      }
      let secret: unknown;
      try {
        secret = JSON.parse(text);
      } catch {
        // Not JSON.parse's message: it quotes the text, which is the secret.
        problems.push(
          `${key}: secret "${secretId}" is not valid JSON: it must hold a JSON object of the account's settings, e.g. {"pathSecret": "…"}`,
        );
        return;
      }
      if (!isPlainObject(secret)) {
        problems.push(
          `${key}: secret "${secretId}" must hold a JSON object of the account's settings (e.g. {"pathSecret": "…"}), not ${Array.isArray(secret) ? 'an array' : secret === null ? 'null' : `a ${typeof secret}`}`,
        );
        return;
      }
      const misplaced = ['secretId', 'allowNoPathSecret'].filter((name) => name in secret);
      if (misplaced.length) {
        problems.push(
          `${key}: secret "${secretId}" may not set ${misplaced.join(' or ')} (those belong in the config)`,
        );
        return;
      }
      const account = merged.accounts[provider]![id]!;
      merged.accounts[provider]![id] = deepMerge(account, secret);
      values.set(accountKey(provider, id), stringLeaves(secret));
    }),
  );
  if (problems.length) throw new ConfigError(`Invalid relay config:\n${problems.sort().join('\n')}`);
  return { config: merged, values };
}

/**
 * Reads the config (Lambda cold start or `npm start`): inline JSON in RELAY_CONFIG_JSON wins, else the
 * file named by RELAY_CONFIG, else `fallbackPath`. Accounts naming a `secretId` get their secret merged
 * in before validation, and every value from a secret is registered with the scrubber
 * (shared/config/secrets.ts). `parseConfig` stays synchronous (it only validates).
 */
export async function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  fallbackPath?: string,
  options: LoadConfigOptions = {},
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
    const merged = await mergeAccountSecrets(parsed, options.readSecret);
    const config = parseConfig(merged.config);
    const problems: string[] = [];
    for (const account of config.accounts.values()) {
      const secretId = accountSecretId(account);
      if (secretId === undefined) continue;
      registerSecretValues(account, merged.values.get(accountKey(account.provider, account.id)) ?? []);
      // cdk synth accepted the account without a path secret because it names a secret: hold it to that.
      if (
        findProvider(account.provider)?.pathSecretRequired &&
        !account.pathSecret &&
        account.allowNoPathSecret === undefined
      ) {
        problems.push(
          `accounts.${account.provider}.${account.id}.pathSecret: neither in the config nor in secret "${secretId}"; add "pathSecret" to the secret (or opt out with allowNoPathSecret: "<reason>")`,
        );
      }
    }
    if (problems.length) throw new ConfigError(`Invalid relay config:\n${problems.join('\n')}`);
    return config;
  } catch (error) {
    if (error instanceof ConfigError)
      throw new ConfigError(`${error.message}\n(config source: ${source})`, { cause: error });
    throw error;
  }
}

export interface RefreshingConfigOptions {
  /** How long a loaded config is used before it is loaded again. @default 5 minutes */
  ttlMs?: number;
  /** After a failed reload, the old config is kept and the load retried after this. @default 30 s */
  retryAfterMs?: number;
  now?: () => number;
  /** A failed reload (the old config stays in use). */
  onError?: (error: Error) => void;
}

export interface RefreshingConfig {
  /** The config, loaded again (once, however many callers wait) when older than the TTL. */
  current(): Promise<RelayConfig>;
}

/**
 * A config re-read after a TTL, so that a warm process picks up rotated secrets: wrap `loadConfig`
 * (whose Secrets Manager reader caches for the same 5 minutes). The first load's failure is thrown;
 * a later one keeps the config in use and is reported to `onError`.
 */
export function refreshingConfig(
  load: () => Promise<RelayConfig>,
  options: RefreshingConfigOptions = {},
): RefreshingConfig {
  const ttlMs = options.ttlMs ?? 5 * 60_000;
  const retryAfterMs = options.retryAfterMs ?? 30_000;
  const now = options.now ?? Date.now;
  let config: RelayConfig | undefined;
  let freshUntil = 0;
  let loading: Promise<RelayConfig> | undefined;
  const reload = () => {
    loading ??= load()
      .then((loaded) => {
        config = loaded;
        freshUntil = now() + ttlMs;
        return loaded;
      })
      .catch((error: Error) => {
        if (!config) throw error;
        options.onError?.(error);
        freshUntil = now() + retryAfterMs;
        return config;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  };
  return {
    current: () => (config && now() < freshUntil ? Promise.resolve(config) : reload()),
  };
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
 * configured without one (and without a `secretId` that may hold it), opted out or not. `npm start` warns about them; `cdk synth` refuses those
 * that did not opt out.
 */
export function accountsWithoutPathSecret(config: RelayConfig): AccountWithoutPathSecret[] {
  const found: AccountWithoutPathSecret[] = [];
  for (const account of config.accounts.values()) {
    const provider = findProvider(account.provider);
    // An account naming a secret counts as having one: loadConfig refuses it at cold start when the
    // secret holds no pathSecret.
    if (!provider?.pathSecretRequired || account.pathSecret || accountSecretId(account)) continue;
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
