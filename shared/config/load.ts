import { readFile } from 'node:fs/promises';
import * as z from '../util/zod';
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
import {
  DEFAULT_SECRET_REFRESH_MS,
  parseSecretRef,
  SECRET_ID_KEYS,
  SECRET_KINDS,
  SECRET_REF_PATTERN,
  type SecretKind,
  type SecretReader,
} from './secret-reader';
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
 * `accounts.<provider>.<id>.callbackSecretId` / `.apiSecretId`, `edge.originVerifySecretId`: a Secrets
 * Manager secret (ARN or name) whose JSON object is merged into the config when it is loaded.
 */
const secretIdSchema = z
  .string()
  .check(
    z.regex(
      /^[A-Za-z0-9/_+=.@:-]{1,2048}$/,
      'a Secrets Manager secret ARN or name (A-Z a-z 0-9 / _ + = . @ -)',
    ),
  );

/**
 * `accounts.<provider>.<id>.callbackSecretId` / `.apiSecretId`: a secret id, or `<secret id>#<member>`
 * when several accounts share one secret (parseSecretRef).
 */
const accountSecretRefSchema = z
  .string()
  .check(
    z.regex(
      SECRET_REF_PATTERN,
      "a Secrets Manager secret ARN or name (A-Z a-z 0-9 / _ + = . @ -), optionally followed by #<member> (the member of the secret's JSON object that holds this account's settings)",
    ),
  );

/** An account as parsed: a ResolvedAccount plus the secrets its settings come from, per kind. */
type LoadedAccount = ResolvedAccount & { secretIds?: Partial<Record<SecretKind, string>> };

/** The secrets an account's settings come (partly) from, per kind (`callbackSecretId`, `apiSecretId`). */
export function accountSecretIds(account: ResolvedAccount): Partial<Record<SecretKind, string>> {
  return (account as LoadedAccount).secretIds ?? {};
}

export interface ParseConfigOptions {
  /**
   * The secrets have not been read (cdk synth): a setting absent from an account that names a secret is
   * assumed to come from it, so "required" problems about absent keys are not reported for that account
   * (loadConfig validates the merged settings at cold start). Such an account keeps its settings as
   * written (no defaults). Never for a config the relay runs with.
   */
  secretsUnresolved?: boolean;
  /** Secret kinds not read by this process: an account naming such a secret is treated as above. */
  unreadKinds?: readonly SecretKind[];
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

/** The kinds of secret a raw account names (`callbackSecretId`, `apiSecretId`). */
function namedKinds(raw: unknown): SecretKind[] {
  if (!isPlainObject(raw)) return [];
  return SECRET_KINDS.filter((kind) => typeof raw[SECRET_ID_KEYS[kind]] === 'string');
}

/** What `secretId` became: one secret per kind, so a function reads only the kind it needs. */
const SECRET_ID_MIGRATION =
  'replaced by two secrets: callbackSecretId (a JSON object of the callback settings: pathSecret, previousPathSecret, callbackKey, c2b.partner.bearerToken) and apiSecretId ({"api": {…the API credentials}}); split the secret in two (docs/configuration.md#secrets)';

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
        previousPathSecret: z.optional(pathSecretSchema),
        allowNoPathSecret: z.optional(allowNoPathSecretSchema),
        callbackSecretId: z.optional(accountSecretRefSchema),
        apiSecretId: z.optional(accountSecretRefSchema),
      }),
      z.never(), // strict: an unknown key is an error
    );
    for (const [accountId, raw] of Object.entries(byId)) {
      const prefix = `accounts.${providerId}.${accountId}`;
      if (!ACCOUNT_ID.test(accountId)) {
        problems.push(`${prefix}: account ids may only use A-Z a-z 0-9 _ - (max 64)`);
        continue;
      }
      if (isPlainObject(raw) && 'secretId' in raw) {
        problems.push(`${prefix}.secretId: ${SECRET_ID_MIGRATION}`);
        continue;
      }
      const parsed = schema.safeParse(raw);
      let data: Record<string, unknown>;
      let checked = true;
      if (parsed.success) {
        data = parsed.data as Record<string, unknown>;
      } else {
        // A key absent from an account whose secret was not read may live in the secret.
        const unread = namedKinds(raw).filter(
          (kind) => options.secretsUnresolved || options.unreadKinds?.includes(kind),
        );
        const remaining = unread.length
          ? parsed.error.issues.filter((issue) => valueAt(raw, issue.path) !== undefined)
          : parsed.error.issues;
        if (remaining.length) {
          problems.push(formatIssues(prefix, remaining));
          continue;
        }
        data = { ...(raw as Record<string, unknown>) };
        checked = false;
      }
      const {
        pathSecret,
        previousPathSecret,
        allowNoPathSecret,
        callbackSecretId,
        apiSecretId,
        ...settings
      } = data as Record<string, unknown> & {
        pathSecret?: string;
        previousPathSecret?: string;
        allowNoPathSecret?: string;
        callbackSecretId?: string;
        apiSecretId?: string;
      };
      if (pathSecret && allowNoPathSecret !== undefined) {
        problems.push(`${prefix}.allowNoPathSecret: the account has a pathSecret; remove allowNoPathSecret`);
        continue;
      }
      if (previousPathSecret && !pathSecret && checked) {
        problems.push(
          `${prefix}.previousPathSecret: accepted only beside a pathSecret (the current one); rotate by moving the current value here and setting a new pathSecret`,
        );
        continue;
      }
      const account: LoadedAccount = { provider: providerId, id: accountId, pathSecret, settings };
      // The previous value is accepted only while it differs from the current one (docs/deploy.md rotation).
      if (previousPathSecret && previousPathSecret !== pathSecret)
        account.previousPathSecret = previousPathSecret;
      if (allowNoPathSecret !== undefined) account.allowNoPathSecret = allowNoPathSecret;
      const secretIds: Partial<Record<SecretKind, string>> = {};
      if (callbackSecretId !== undefined) secretIds.callback = callbackSecretId;
      if (apiSecretId !== undefined) secretIds.api = apiSecretId;
      if (Object.keys(secretIds).length) account.secretIds = secretIds;
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
  const tokens = core.data.management.tokens;
  if (core.data.management.auth === 'bearer' && !core.data.management.bearerToken && !tokens.length) {
    problems.push('management.bearerToken: required when management.auth is "bearer" (or management.tokens)');
  }
  const names = tokens.map((t) => t.name);
  const twice = names.filter((name, i) => names.indexOf(name) !== i);
  if (twice.length) problems.push(`management.tokens: each name once (${[...new Set(twice)].join(', ')})`);
  if (problems.length) throw new ConfigError(`Invalid relay config:\n${problems.join('\n')}`);
  return { ...core.data, accounts };
}

export interface LoadConfigOptions {
  /**
   * Reads the secrets the config names (Secrets Manager, injected by the composition root). Required when
   * the config names a secret of a kind in `secretKinds`.
   */
  readSecret?: SecretReader;
  /**
   * The kinds of secret this process reads (its role may read no other): accounts' secrets of other
   * kinds are left unread, and their settings absent (an account's `api` is dropped when its `apiSecretId`
   * is not read). @default every kind
   */
  secretKinds?: readonly SecretKind[];
}

/** What the secrets contributed: their string values (all of them scrubbed from logs) and their texts. */
export interface ResolvedSecrets {
  /** The config with every read secret merged in (the ids kept). */
  config: unknown;
  /** Per account key (`<provider>/<id>`): every string value that came from its secrets. */
  values: Map<string, string[]>;
  /** Every secret's text as read, by id: what tells a refresh whether anything changed. */
  texts: Map<string, string>;
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

/** What a secret of each kind may hold; a problem (naming the secret, never a value) or undefined. */
function secretShapeProblem(
  kind: SecretKind | 'edge' | 'search' | 'token',
  secretId: string,
  secret: Record<string, unknown>,
) {
  const keys = Object.keys(secret);
  if (kind === 'token') {
    if (typeof secret.token !== 'string' || secret.token.length < 16 || keys.length !== 1)
      return `secret "${secretId}" must hold exactly {"token": "…"} (at least 16 characters)`;
    return undefined;
  }
  if (kind === 'search') {
    if (typeof secret.searchKey !== 'string' || keys.length !== 1)
      return `secret "${secretId}" must hold exactly {"searchKey": "…"} (at least 32 characters)`;
    return undefined;
  }
  if (kind === 'api') {
    if (keys.length !== 1 || !isPlainObject(secret.api))
      return `secret "${secretId}" must hold exactly {"api": {…}} (the account's API credentials; callback settings belong in callbackSecretId)`;
    return undefined;
  }
  if (kind === 'edge') {
    const extra = keys.filter((k) => k !== 'originVerifySecret' && k !== 'previousOriginVerifySecret');
    if (typeof secret.originVerifySecret !== 'string' || extra.length)
      return `secret "${secretId}" must hold {"originVerifySecret": "…"} and optionally "previousOriginVerifySecret" while rotating`;
    return undefined;
  }
  const misplaced = keys.filter((k) =>
    ['api', 'secretId', 'callbackSecretId', 'apiSecretId', 'allowNoPathSecret'].includes(k),
  );
  if (misplaced.length)
    return `secret "${secretId}" may not set ${misplaced.join(' or ')} (${misplaced.includes('api') ? 'API credentials belong in apiSecretId; ' : ''}ids and opt-outs belong in the config)`;
  return undefined;
}

/**
 * Reads the secrets the config names, of the kinds asked for, and merges each into its place, the secret
 * winning: an account's `callbackSecretId` (a JSON object of callback settings, e.g.
 * `{"pathSecret":"…","previousPathSecret":"…","callbackKey":"…"}`) and `apiSecretId` (`{"api":{…}}`)
 * deep-merged into the account; `edge.originVerifySecretId` (`{"originVerifySecret":"…",
 * "previousOriginVerifySecret":"…"}`) becoming `edge.originVerifySecrets`. Every problem names the key
 * and the secret id, never a value. A config naming no secret comes back as it was.
 */
export async function resolveSecrets(
  input: unknown,
  options: LoadConfigOptions = {},
): Promise<ResolvedSecrets> {
  const kinds = options.secretKinds ?? SECRET_KINDS;
  const values = new Map<string, string[]>();
  const texts = new Map<string, string>();
  type Wanted = {
    kind: SecretKind | 'edge' | 'search' | 'token';
    index?: number;
    key: string;
    secretId: string;
    /** The member of the secret's JSON object that is this account's (a keyed reference). */
    member?: string;
    provider?: string;
    id?: string;
  };
  const wanted: Wanted[] = [];
  // A malformed id is left for parseConfig to report with its key.
  const valid = (id: unknown): id is string => typeof id === 'string' && secretIdSchema.safeParse(id).success;
  const root = isPlainObject(input) ? input : {};
  const accounts = isPlainObject(root.accounts) ? root.accounts : {};
  for (const [provider, byId] of Object.entries(accounts)) {
    if (!isPlainObject(byId)) continue;
    for (const [id, raw] of Object.entries(byId)) {
      if (!isPlainObject(raw)) continue;
      for (const kind of kinds) {
        const ref = raw[SECRET_ID_KEYS[kind]];
        if (typeof ref === 'string' && SECRET_REF_PATTERN.test(ref))
          wanted.push({
            kind,
            key: `accounts.${provider}.${id}.${SECRET_ID_KEYS[kind]}`,
            ...parseSecretRef(ref),
            provider,
            id,
          });
      }
    }
  }
  const edge = isPlainObject(root.edge) ? root.edge : undefined;
  if (kinds.includes('callback') && valid(edge?.originVerifySecretId))
    wanted.push({ kind: 'edge', key: 'edge.originVerifySecretId', secretId: edge.originVerifySecretId });
  // The search key is read with the callback secrets: the functions that register and search (management,
  // transaction-initiated) read those, and so do the others that share their grants.
  const management = isPlainObject(root.management) ? root.management : undefined;
  if (kinds.includes('callback') && valid(management?.searchKeySecretId))
    wanted.push({
      kind: 'search',
      key: 'management.searchKeySecretId',
      secretId: management.searchKeySecretId,
    });
  // Named management tokens are read with the callback secrets too (the management function reads those).
  if (kinds.includes('callback') && Array.isArray(management?.tokens))
    management.tokens.forEach((token: unknown, index) => {
      if (isPlainObject(token) && valid(token.secretId))
        wanted.push({
          kind: 'token',
          key: `management.tokens.${index}.secretId`,
          secretId: token.secretId,
          index,
        });
    });
  const unreadApi = !kinds.includes('api');
  const namesUnreadApi = Object.values(accounts).some(
    (byId) =>
      isPlainObject(byId) && Object.values(byId).some((raw) => isPlainObject(raw) && 'apiSecretId' in raw),
  );
  if (wanted.length === 0 && !(unreadApi && namesUnreadApi)) return { config: input, values, texts };
  const read = options.readSecret;
  if (wanted.length && !read)
    throw new ConfigError(
      `${wanted[0]!.key}: the config names a secret but no secret reader was given (the composition root wires Secrets Manager)`,
    );

  const problems: string[] = [];
  const merged = structuredClone(input) as {
    accounts: Record<string, Record<string, Record<string, unknown>>>;
    edge?: Record<string, unknown>;
    management?: Record<string, unknown>;
  };
  if (unreadApi) {
    // The API credentials are not this process's to read: the rest of `api` goes too, so the provider's
    // schema does not ask for the credentials it lacks (nothing here calls the provider's API).
    for (const byId of Object.values(merged.accounts ?? {}))
      for (const account of Object.values(byId))
        if (isPlainObject(account) && 'apiSecretId' in account) delete account.api;
  }
  await Promise.all(
    wanted.map(async ({ kind, key, secretId, member, provider, id, index }) => {
      let text: string;
      try {
        text = await read!(secretId);
      } catch (error) {
        const message = (error as Error).message;
        problems.push(
          `${key}: ${message.includes(secretId) ? message : `cannot read secret "${secretId}": ${message}`}`,
        );
        return;
      }
      texts.set(secretId, text);
      let document: unknown;
      try {
        document = JSON.parse(text);
      } catch {
        // Not JSON.parse's message: it quotes the text, which is the secret.
        problems.push(
          `${key}: secret "${secretId}" is not valid JSON: it must hold a JSON object, e.g. {"pathSecret": "…"}`,
        );
        return;
      }
      if (!isPlainObject(document)) {
        problems.push(
          `${key}: secret "${secretId}" must hold a JSON object (e.g. {"pathSecret": "…"}), not ${Array.isArray(document) ? 'an array' : document === null ? 'null' : `a ${typeof document}`}`,
        );
        return;
      }
      // A secret shared by several accounts (a keyed reference): this account's settings are one member.
      const secret = member === undefined ? document : document[member];
      if (!isPlainObject(secret)) {
        problems.push(
          `${key}: secret "${secretId}" has no JSON object under "${member}" (a shared secret holds one object per account: {"${member}": {…}, …})`,
        );
        return;
      }
      const shape = secretShapeProblem(
        kind,
        member === undefined ? secretId : `${secretId}#${member}`,
        secret,
      );
      if (shape) {
        problems.push(`${key}: ${shape}`);
        return;
      }
      if (kind === 'search') {
        merged.management!.searchKey = secret.searchKey;
        return;
      }
      if (kind === 'token') {
        (merged.management!.tokens as Record<string, unknown>[])[index!]!.token = secret.token;
        return;
      }
      if (kind === 'edge') {
        const edgeConfig = merged.edge!;
        edgeConfig.originVerifySecrets = [
          secret.originVerifySecret,
          secret.previousOriginVerifySecret,
        ].filter((value) => value !== undefined);
        return;
      }
      const account = merged.accounts[provider!]![id!]!;
      merged.accounts[provider!]![id!] = deepMerge(account, secret);
      const accountValues = values.get(accountKey(provider!, id!)) ?? [];
      values.set(accountKey(provider!, id!), [...accountValues, ...stringLeaves(secret)]);
    }),
  );
  if (problems.length) throw new ConfigError(`Invalid relay config:\n${problems.sort().join('\n')}`);
  return { config: merged, values, texts };
}

async function readConfigText(
  env: NodeJS.ProcessEnv,
  fallbackPath: string | undefined,
): Promise<{ parsed: unknown; source: string }> {
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
  try {
    return { parsed: JSON.parse(text), source };
  } catch (cause) {
    throw new ConfigError(`${source}: not valid JSON: ${(cause as Error).message}`, { cause });
  }
}

/** The config with its secrets read, validated, and every value from a secret registered with the scrubber. */
async function resolveAndParse(
  parsed: unknown,
  options: LoadConfigOptions,
): Promise<{ config: RelayConfig; texts: Map<string, string>; values: Map<string, string[]> }> {
  const kinds = options.secretKinds ?? SECRET_KINDS;
  const resolved = await resolveSecrets(parsed, options);
  const config = parseConfig(resolved.config, {
    unreadKinds: SECRET_KINDS.filter((k) => !kinds.includes(k)),
  });
  const problems: string[] = [];
  for (const account of config.accounts.values()) {
    const secretId = accountSecretIds(account).callback;
    registerSecretValues(account, resolved.values.get(accountKey(account.provider, account.id)) ?? []);
    // cdk synth accepted the account without a path secret because it names a secret: hold it to that.
    if (
      secretId !== undefined &&
      kinds.includes('callback') &&
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
  return { config, texts: resolved.texts, values: resolved.values };
}

function withSource(error: unknown, source: string): unknown {
  return error instanceof ConfigError
    ? new ConfigError(`${error.message}\n(config source: ${source})`, { cause: error })
    : error;
}

/**
 * Reads the config (Lambda cold start or `npm start`): inline JSON in RELAY_CONFIG_JSON wins, else the
 * file named by RELAY_CONFIG (in Lambda, the config layer's file), else `fallbackPath`. The secrets it
 * names, of the kinds this process reads, are merged in before validation, and every value from a
 * secret is registered with the scrubber (shared/config/secrets.ts). `parseConfig` stays synchronous.
 */
export async function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  fallbackPath?: string,
  options: LoadConfigOptions = {},
): Promise<RelayConfig> {
  return (await loadRefreshingConfig(env, fallbackPath, options)).config;
}

export interface RefreshingConfigOptions extends LoadConfigOptions {
  /**
   * How often a warm process reads its secrets again (through the reader, whose own cache adds its
   * TTL: Secrets Manager's reader, 5 minutes). @default DEFAULT_SECRET_REFRESH_MS (1 minute)
   */
  refreshMs?: number;
  now?: () => number;
  /** A failed refresh (the values in use stay): log it. */
  onError?: (error: Error) => void;
  /** The secrets changed and the config now holds the new values (e.g. rebuild the scrubber). */
  onChange?: (config: RelayConfig) => void;
}

export interface RefreshingConfig {
  /** The config: the same object for the life of the process; a refresh updates its secret values in place. */
  readonly config: RelayConfig;
  /**
   * Reads the secrets again when the last read is older than `refreshMs` (concurrent callers share one
   * read), and puts changed values into the config's accounts and edge. Never throws: a failure keeps
   * the values in use and is reported to `onError`.
   */
  refresh(): Promise<void>;
}

/**
 * `loadConfig` for a process that lives on (a warm Lambda, `npm start`): secret rotation without a
 * restart. The first load's failure is thrown.
 */
export async function loadRefreshingConfig(
  env: NodeJS.ProcessEnv = process.env,
  fallbackPath?: string,
  options: RefreshingConfigOptions = {},
): Promise<RefreshingConfig> {
  const { parsed, source } = await readConfigText(env, fallbackPath);
  let first: Awaited<ReturnType<typeof resolveAndParse>>;
  try {
    first = await resolveAndParse(parsed, options);
  } catch (error) {
    throw withSource(error, source);
  }
  const { config } = first;
  let texts = first.texts;
  const refreshMs = options.refreshMs ?? DEFAULT_SECRET_REFRESH_MS;
  const now = options.now ?? Date.now;
  let nextAt = now() + refreshMs;
  let running: Promise<void> | undefined;
  const same = (a: Map<string, string>, b: Map<string, string>) =>
    a.size === b.size && [...a].every(([id, text]) => b.get(id) === text);
  const refresh = async () => {
    try {
      const fresh = await resolveAndParse(parsed, options);
      if (same(fresh.texts, texts)) return;
      for (const [key, account] of fresh.config.accounts) {
        const current = config.accounts.get(key);
        if (!current) continue;
        current.pathSecret = account.pathSecret;
        if (account.previousPathSecret) current.previousPathSecret = account.previousPathSecret;
        else delete current.previousPathSecret;
        current.settings = account.settings;
        // Added to what was registered: the old values stay scrubbed (a late callback may still carry them).
        registerSecretValues(current, fresh.values.get(key) ?? []);
      }
      config.edge.originVerifySecrets = fresh.config.edge.originVerifySecrets;
      texts = fresh.texts;
      options.onChange?.(config);
    } catch (error) {
      options.onError?.(withSource(error, source) as Error);
    }
  };
  return {
    config,
    refresh: () => {
      if (running) return running;
      if (now() < nextAt) return Promise.resolve();
      nextAt = now() + refreshMs;
      running = refresh().finally(() => {
        running = undefined;
      });
      return running;
    },
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
