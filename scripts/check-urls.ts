import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sharedSecretReader } from '../shared/adapters/secrets/secrets-manager';
import { loadConfig } from '../shared/config/load';
import type { RelayConfig } from '../shared/config/schema';
import { ConfigError } from '../shared/domain/errors';
import { findProvider } from '../shared/providers/registry';
import { checkUrlRules, type UrlRuleViolation } from '../shared/util/url-rules';
import { parseCli } from './cli';

/**
 * `npm run check-urls [-- --config <file>] [--hide-secrets]`: every public URL the relay would have a
 * provider call (one per provider route of every account, path secret included, e.g. Daraja's 7) and
 * every URL an account is configured with, each with its URL-rules verdict. Exit code 1 if any fails.
 */
export interface PublicUrl {
  provider: string;
  account: string;
  /** Route name, or the settings key of a configured URL. */
  key: string;
  url: string;
  source: 'route' | 'setting';
}

export interface UrlVerdict extends PublicUrl {
  violations: UrlRuleViolation[];
}

export function listPublicUrls(config: RelayConfig): PublicUrl[] {
  const base = config.publicBaseUrl.replace(/\/$/, '');
  const urls: PublicUrl[] = [];
  for (const account of config.accounts.values()) {
    const provider = findProvider(account.provider);
    if (!provider) continue;
    const prefix = `${base}/v1/${provider.id}/${account.id}${account.pathSecret ? `/${account.pathSecret}` : ''}`;
    for (const route of provider.routes) {
      urls.push({
        provider: provider.id,
        account: account.id,
        key: route.name,
        url: `${prefix}/${route.path}`,
        source: 'route',
      });
    }
    for (const { key, url } of provider.configuredUrls?.(account.settings as never) ?? []) {
      urls.push({ provider: provider.id, account: account.id, key, url, source: 'setting' });
    }
  }
  return urls;
}

export function checkPublicUrls(config: RelayConfig): UrlVerdict[] {
  return listPublicUrls(config).map((u) => ({ ...u, violations: checkUrlRules(u.url, config.urlRules) }));
}

export function formatVerdicts(
  verdicts: readonly UrlVerdict[],
  options: { hideSecrets?: (url: string) => string } = {},
): string {
  const show = options.hideSecrets ?? ((url: string) => url);
  const lines: string[] = [];
  let current = '';
  for (const v of verdicts) {
    const heading = `${v.provider}/${v.account}`;
    if (heading !== current) {
      lines.push(`${lines.length ? '\n' : ''}${heading}`);
      current = heading;
    }
    lines.push(`  ${v.violations.length ? 'FAIL' : 'ok  '} ${v.key.padEnd(18)} ${show(v.url)}`);
    for (const violation of v.violations) lines.push(`         - ${violation.rule}: ${violation.message}`);
  }
  const failed = verdicts.filter((v) => v.violations.length).length;
  lines.push(
    '',
    failed
      ? `${failed} of ${verdicts.length} URLs break the URL rules`
      : `all ${verdicts.length} URLs pass the URL rules`,
  );
  return lines.join('\n');
}

function secretHider(config: RelayConfig): (url: string) => string {
  const secrets = [...config.accounts.values()]
    .map((a) => a.pathSecret)
    .filter((s): s is string => Boolean(s));
  return (url) => secrets.reduce((text, secret) => text.replaceAll(`/${secret}/`, '/{secret}/'), url);
}

const USAGE = `Usage: npm run check-urls -- [--config <file>] [--hide-secrets]

Every public URL the relay would have a provider call (one per provider route of every account, path
secret included) and every URL an account is configured with, each with its URL-rules verdict
(docs/configuration.md#checking-urls-npm-run-check-urls). Exit code 1 if any fails.

Options:
  --config <file>   relay config JSON (default: RELAY_CONFIG or local/demo-config.json)
  --hide-secrets    print {secret} in place of path secrets
  --help            this text`;

async function main(): Promise<void> {
  const { values } = parseCli(USAGE, {
    options: { config: { type: 'string' }, 'hide-secrets': { type: 'boolean' } },
    allowPositionals: false,
  });
  const fallback = resolve(import.meta.dirname, '../local/demo-config.json');
  let config: RelayConfig;
  try {
    config = await loadConfig(
      values.config ? { ...process.env, RELAY_CONFIG: values.config } : process.env,
      fallback,
      // A config naming secrets (a deployed one: docs/configuration.md#secrets) reads them from Secrets
      // Manager with the AWS credentials in use, as npm start does: the path secrets are in the URLs.
      { readSecret: (secretId) => sharedSecretReader()(secretId) },
    );
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`✖ ${error.message}\n`);
    process.exit(1);
  }
  const verdicts = checkPublicUrls(config);
  process.stdout.write(
    `${formatVerdicts(verdicts, values['hide-secrets'] ? { hideSecrets: secretHider(config) } : {})}\n`,
  );
  process.exitCode = verdicts.some((v) => v.violations.length) ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
