import { findProvider } from '../providers/registry';
import { checkUrlRules, describeViolations } from '../util/url-rules';
import { SHARED_TOKEN_ID } from '../domain/actor';
import {
  accountSecretIds,
  type LoadConfigOptions,
  loadRefreshingWith,
  type ParseConfigOptions,
  type ParsedAccount,
  parseConfigWith,
  type RefreshingConfig,
  type RefreshingConfigOptions,
} from './loader';
import { type RelayConfig, relayConfigCoreSchema } from './schema';

/** The sections of the whole config the URL checks read. */
type UrlSections = Pick<RelayConfig, 'publicBaseUrl' | 'urlRules'>;

/** The URLs an account's settings name, and the callback URLs the relay hands out for it, against the URL rules. */
function accountUrlProblems(core: UrlSections, account: ParsedAccount): string[] {
  const { prefix, provider, id, pathSecret, settings, checked } = account;
  const problems: string[] = [];
  let urls: { key: string; url: string }[] = [];
  try {
    urls = provider.configuredUrls?.(settings as never) ?? [];
  } catch (error) {
    // Settings checked only in part (secrets unresolved) may lack what the provider reads.
    if (checked) throw error;
  }
  for (const { key, url } of urls) {
    const violations = checkUrlRules(url, core.urlRules);
    if (violations.length) problems.push(`${prefix}.${key}: ${describeViolations(violations)}`);
  }
  // The URL the relay will hand out for this account must itself pass the rules.
  const sample = `${core.publicBaseUrl.replace(/\/$/, '')}/v1/${provider.id}/${id}${pathSecret ? `/${pathSecret}` : ''}/`;
  const sampleViolations = checkUrlRules(sample, core.urlRules);
  if (sampleViolations.length) {
    problems.push(
      `${prefix}: callback URLs built for this account break the URL rules: ${describeViolations(sampleViolations)}`,
    );
  }
  return problems;
}

/** The whole config's own checks across sections: the base URL's rules, the management tokens. */
function configProblems(core: UrlSections & Pick<RelayConfig, 'management'>): string[] {
  const problems: string[] = [];
  const baseViolations = checkUrlRules(core.publicBaseUrl, core.urlRules);
  if (baseViolations.length) problems.push(`publicBaseUrl: ${describeViolations(baseViolations)}`);
  const tokens = core.management.tokens;
  if (core.management.auth === 'bearer' && !core.management.bearerToken && !tokens.length) {
    problems.push('management.bearerToken: required when management.auth is "bearer" (or management.tokens)');
  }
  const names = tokens.map((t) => t.name);
  const twice = names.filter((name, i) => names.indexOf(name) !== i);
  if (twice.length) problems.push(`management.tokens: each name once (${[...new Set(twice)].join(', ')})`);
  // The shared token's own id: a named token called so would pass for it (and fail four eyes).
  if (names.includes(SHARED_TOKEN_ID))
    problems.push(`management.tokens: "${SHARED_TOKEN_ID}" is the shared bearer token's name; pick another`);
  return problems;
}

/** Validates a parsed config object. Every problem is reported with the dotted key that caused it. */
export function parseConfig(input: unknown, options: ParseConfigOptions = {}): RelayConfig {
  return parseConfigWith(relayConfigCoreSchema, input, options, {
    account: accountUrlProblems,
    config: configProblems,
  });
}

/**
 * Reads the whole config (a Lambda cold start, `npm start`, the scripts): see loadRefreshingWith
 * (loader.ts). `parseConfig` stays synchronous.
 */
export async function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  fallbackPath?: string,
  options: LoadConfigOptions = {},
): Promise<RelayConfig> {
  return (await loadRefreshingConfig(env, fallbackPath, options)).config;
}

/** `loadConfig` for a process that lives on (a warm Lambda, `npm start`): secret rotation without a restart. */
export async function loadRefreshingConfig(
  env: NodeJS.ProcessEnv = process.env,
  fallbackPath?: string,
  options: RefreshingConfigOptions<RelayConfig> = {},
): Promise<RefreshingConfig<RelayConfig>> {
  return loadRefreshingWith(parseConfig, env, fallbackPath, options);
}

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
 * configured without one (and without a `callbackSecretId` that may hold it), opted out or not. `npm start`
 * warns about them; `cdk synth` refuses those that did not opt out.
 */
export function accountsWithoutPathSecret(config: RelayConfig): AccountWithoutPathSecret[] {
  const found: AccountWithoutPathSecret[] = [];
  for (const account of config.accounts.values()) {
    const provider = findProvider(account.provider);
    // An account naming a callback secret counts as having one: loadConfig refuses it at cold start when
    // the secret holds no pathSecret.
    if (!provider?.pathSecretRequired || account.pathSecret || accountSecretIds(account).callback) continue;
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
