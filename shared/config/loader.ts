import { readFile } from 'node:fs/promises';
import * as z from '../util/zod';
import { ConfigError } from '../domain/errors';
import { findProvider, PROVIDERS } from '../providers/registry';
import type { ProviderModule } from '../providers/types';
import {
  accountKey,
  allowNoPathSecretSchema,
  type CallbackConfig,
  callbackConfigSchema,
  pathSecretSchema,
  type ResolvedAccount,
} from './callback-config';
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

/**
 * Reading a config, merging its secrets, validating its accounts and refreshing the secrets while warm,
 * whatever sections it is parsed with: the whole config (load.ts, every function but the callback path's)
 * or the callback path's sections (callback-config.ts, the callback function and the buffer consumer),
 * so this file imports no section's schema.
 */

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
      'a Secrets Manager secret ARN or name (A-Z a-z 0-9 / _ + = . @ -), then optionally #<member> (of its JSON object)',
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
  'replaced by two secrets: callbackSecretId (the callback settings) and apiSecretId ({"api": {…}}): split it (docs/configuration.md#secrets)';

/** Validates a parsed config object. Every problem is reported with the dotted key that caused it. */

/** What every config is parsed with: its accounts (raw, by provider and id) and its ack budgets by provider. */
interface ConfigSections {
  accounts: Record<string, Record<string, unknown>>;
  ackBudgets: Record<string, unknown>;
}

/** A parsed config: its sections, with the accounts resolved. */
export type ParsedConfig<C extends ConfigSections> = Omit<C, 'accounts'> & {
  accounts: ReadonlyMap<string, ResolvedAccount>;
};

/** One account as its settings schema left it, for the checks beyond it (the whole config's URL rules). */
export interface ParsedAccount {
  /** Dotted key of the account: `accounts.<provider>.<id>`. */
  prefix: string;
  provider: ProviderModule;
  id: string;
  pathSecret: string | undefined;
  settings: Record<string, unknown>;
  /** False when the settings were checked only in part (secrets unresolved). */
  checked: boolean;
}

/** Checks beyond the sections' schemas and the accounts' settings: each returns problems (dotted keys first). */
export interface ConfigChecks<C> {
  account?: (core: C, account: ParsedAccount) => string[];
  config?: (core: C) => string[];
}

/** The schema one provider's accounts are parsed with: its settings and the relay's own account keys. */
function accountSchema(provider: ProviderModule) {
  return z.catchall(
    z.extend(provider.accountSchema, {
      pathSecret: z.optional(pathSecretSchema),
      previousPathSecret: z.optional(pathSecretSchema),
      allowNoPathSecret: z.optional(allowNoPathSecretSchema),
      callbackSecretId: z.optional(accountSecretRefSchema),
      apiSecretId: z.optional(accountSecretRefSchema),
    }),
    z.never(), // strict: an unknown key is an error
  );
}

/** One account's settings checked (a key absent from an unread secret excused): the settings, or problems. */
function checkedSettings(
  schema: ReturnType<typeof accountSchema>,
  prefix: string,
  raw: unknown,
  options: ParseConfigOptions,
): { data: Record<string, unknown>; checked: boolean } | { problem: string } {
  if (isPlainObject(raw) && 'secretId' in raw)
    return { problem: `${prefix}.secretId: ${SECRET_ID_MIGRATION}` };
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { data: parsed.data as Record<string, unknown>, checked: true };
  // A key absent from an account whose secret was not read may live in the secret.
  const unread = namedKinds(raw).filter(
    (kind) => options.secretsUnresolved || options.unreadKinds?.includes(kind),
  );
  const remaining = unread.length
    ? parsed.error.issues.filter((issue) => valueAt(raw, issue.path) !== undefined)
    : parsed.error.issues;
  if (remaining.length) return { problem: formatIssues(prefix, remaining) };
  return { data: { ...(raw as Record<string, unknown>) }, checked: false };
}

/** One account parsed: the resolved account, or the problems that refuse it. */
function parseAccount(
  provider: ProviderModule,
  accountId: string,
  raw: unknown,
  options: ParseConfigOptions,
  schema: ReturnType<typeof accountSchema>,
): { account: LoadedAccount; parsed: ParsedAccount } | { problem: string } {
  const prefix = `accounts.${provider.id}.${accountId}`;
  if (!ACCOUNT_ID.test(accountId))
    return { problem: `${prefix}: account ids may only use A-Z a-z 0-9 _ - (max 64)` };
  const result = checkedSettings(schema, prefix, raw, options);
  if ('problem' in result) return result;
  const { pathSecret, previousPathSecret, allowNoPathSecret, callbackSecretId, apiSecretId, ...settings } =
    result.data as Record<string, unknown> & {
      pathSecret?: string;
      previousPathSecret?: string;
      allowNoPathSecret?: string;
      callbackSecretId?: string;
      apiSecretId?: string;
    };
  if (pathSecret && allowNoPathSecret !== undefined)
    return { problem: `${prefix}.allowNoPathSecret: the account has a pathSecret; remove allowNoPathSecret` };
  if (previousPathSecret && !pathSecret && result.checked)
    return {
      problem: `${prefix}.previousPathSecret: accepted only beside a pathSecret (to rotate: move the current one here, set a new one)`,
    };
  const account: LoadedAccount = { provider: provider.id, id: accountId, pathSecret, settings };
  // The previous value is accepted only while it differs from the current one (docs/deploy.md rotation).
  if (previousPathSecret && previousPathSecret !== pathSecret)
    account.previousPathSecret = previousPathSecret;
  if (allowNoPathSecret !== undefined) account.allowNoPathSecret = allowNoPathSecret;
  const secretIds: Partial<Record<SecretKind, string>> = {};
  if (callbackSecretId !== undefined) secretIds.callback = callbackSecretId;
  if (apiSecretId !== undefined) secretIds.api = apiSecretId;
  if (Object.keys(secretIds).length) account.secretIds = secretIds;
  return {
    account,
    parsed: { prefix, provider, id: accountId, pathSecret, settings, checked: result.checked },
  };
}

const knownProviders = () => PROVIDERS.map((p) => p.id).join(', ');

/**
 * Validates a parsed config object with `schema` (its sections), then each account with its provider's
 * settings schema, then `checks`. Every problem is reported with the dotted key that caused it.
 */
export function parseConfigWith<C extends ConfigSections>(
  schema: z.ZodMiniType<C>,
  input: unknown,
  options: ParseConfigOptions = {},
  checks: ConfigChecks<C> = {},
): ParsedConfig<C> {
  const core = schema.safeParse(input);
  if (!core.success) {
    // Every problem at once: a typo at the top (`acounts`, `management.bearerTokn`) must not hide the
    // accounts' own, found one fix later. Their accounts are checked as far as they can be alone.
    const raw = (input as { accounts?: unknown } | null)?.accounts;
    const accountIssues =
      raw && typeof raw === 'object' && !Array.isArray(raw)
        ? parseAccounts(raw as Record<string, unknown>, options)
        : [];
    throw new ConfigError(
      `Invalid relay config:\n${[formatIssues('', core.error.issues), ...accountIssues].join('\n')}`,
    );
  }
  const problems: string[] = [];
  const accounts = new Map<string, ResolvedAccount>();
  // A misspelt provider would silently leave the real one on its defaults.
  for (const providerId of Object.keys(core.data.ackBudgets))
    if (!findProvider(providerId))
      problems.push(`ackBudgets.${providerId}: unknown provider (known: ${knownProviders()})`);
  problems.push(
    ...parseAccounts(core.data.accounts, options, (key, result) => {
      accounts.set(key, result.account);
      return checks.account?.(core.data, result.parsed) ?? [];
    }),
  );
  problems.push(...(checks.config?.(core.data) ?? []));
  if (problems.length) throw new ConfigError(`Invalid relay config:\n${problems.join('\n')}`);
  return { ...core.data, accounts };
}

/**
 * Every account of `accounts.<provider>.<id>` parsed; the problems of those refused, and those `onParsed`
 * finds in the others. Without `onParsed` (the rest of the config has problems of its own) it only looks.
 */
function parseAccounts(
  byProvider: Record<string, unknown>,
  options: ParseConfigOptions,
  onParsed: (
    key: string,
    result: { account: LoadedAccount; parsed: ParsedAccount },
  ) => readonly string[] = () => [],
): string[] {
  const problems: string[] = [];
  for (const [providerId, byId] of Object.entries(byProvider)) {
    const provider = findProvider(providerId);
    if (!provider) {
      problems.push(`accounts.${providerId}: unknown provider (known: ${knownProviders()})`);
      continue;
    }
    if (!byId || typeof byId !== 'object' || Array.isArray(byId)) continue;
    const schemaOfAccount = accountSchema(provider);
    for (const [accountId, raw] of Object.entries(byId)) {
      const result = parseAccount(provider, accountId, raw, options, schemaOfAccount);
      problems.push(
        ...('problem' in result ? [result.problem] : onParsed(accountKey(providerId, accountId), result)),
      );
    }
  }
  return problems;
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
      return `secret "${secretId}" must hold exactly {"api": {…}} (callback settings go in callbackSecretId)`;
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

/** One secret the config names: where its id sits, and where its values go. */
interface WantedSecret {
  kind: SecretKind | 'edge' | 'search' | 'token';
  /** The management token's position in `management.tokens`. */
  index?: number;
  key: string;
  secretId: string;
  /** The member of the secret's JSON object that is this account's (a keyed reference). */
  member?: string;
  provider?: string;
  id?: string;
}

/** The config as resolveSecrets rewrites it (a clone: the input stays as given). */
interface MergedConfig {
  accounts: Record<string, Record<string, Record<string, unknown>>>;
  edge?: Record<string, unknown>;
  management?: Record<string, unknown>;
}

// A malformed id is left for parseConfig to report with its key.
const validSecretId = (id: unknown): id is string =>
  typeof id === 'string' && secretIdSchema.safeParse(id).success;

/** The accounts' secret references of the kinds asked for, each keyed by where it sits in the config. */
function accountSecretRefs(accounts: Record<string, unknown>, kinds: readonly SecretKind[]): WantedSecret[] {
  const wanted: WantedSecret[] = [];
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
  return wanted;
}

/** The secrets outside the accounts: the edge's origin-verify secret, the search key, the management tokens. */
function relaySecretRefs(root: Record<string, unknown>, kinds: readonly SecretKind[]): WantedSecret[] {
  if (!kinds.includes('callback')) return [];
  const wanted: WantedSecret[] = [];
  const edge = isPlainObject(root.edge) ? root.edge : undefined;
  if (validSecretId(edge?.originVerifySecretId))
    wanted.push({ kind: 'edge', key: 'edge.originVerifySecretId', secretId: edge.originVerifySecretId });
  // The search key is read with the callback secrets: the functions that register and search (management,
  // transaction-initiated) read those, and so do the others that share their grants.
  const management = isPlainObject(root.management) ? root.management : undefined;
  if (validSecretId(management?.searchKeySecretId))
    wanted.push({
      kind: 'search',
      key: 'management.searchKeySecretId',
      secretId: management.searchKeySecretId,
    });
  // Named management tokens are read with the callback secrets too (the management function reads those).
  if (Array.isArray(management?.tokens))
    management.tokens.forEach((token: unknown, index) => {
      if (isPlainObject(token) && validSecretId(token.secretId))
        wanted.push({
          kind: 'token',
          key: `management.tokens.${index}.secretId`,
          secretId: token.secretId,
          index,
        });
    });
  return wanted;
}

function namesApiSecret(accounts: Record<string, unknown>): boolean {
  return Object.values(accounts).some(
    (byId) =>
      isPlainObject(byId) && Object.values(byId).some((raw) => isPlainObject(raw) && 'apiSecretId' in raw),
  );
}

/**
 * The API credentials are not this process's to read: the rest of `api` goes too, so the provider's
 * schema does not ask for the credentials it lacks (nothing here calls the provider's API).
 */
function dropUnreadApi(merged: MergedConfig): void {
  for (const byId of Object.values(merged.accounts ?? {}))
    for (const account of Object.values(byId))
      if (isPlainObject(account) && 'apiSecretId' in account) delete account.api;
}

/**
 * Reads one secret and checks it holds an object of its kind's shape: the object, or a problem (naming the
 * key and the secret id, never a value). Every text read is kept in `texts`, valid or not.
 */
async function readSecretObject(
  read: SecretReader,
  { kind, key, secretId, member }: WantedSecret,
  texts: Map<string, string>,
): Promise<{ secret: Record<string, unknown> } | { problem: string }> {
  let text: string;
  try {
    text = await read(secretId);
  } catch (error) {
    const message = (error as Error).message;
    return {
      problem: `${key}: ${message.includes(secretId) ? message : `cannot read secret "${secretId}": ${message}`}`,
    };
  }
  texts.set(secretId, text);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    // Not JSON.parse's message: it quotes the text, which is the secret.
    return {
      problem: `${key}: secret "${secretId}" is not valid JSON: it must hold a JSON object, e.g. {"pathSecret": "…"}`,
    };
  }
  if (!isPlainObject(document))
    return {
      problem: `${key}: secret "${secretId}" must hold a JSON object (e.g. {"pathSecret": "…"}), not ${Array.isArray(document) ? 'an array' : document === null ? 'null' : `a ${typeof document}`}`,
    };
  // A secret shared by several accounts (a keyed reference): this account's settings are one member.
  const secret = member === undefined ? document : document[member];
  if (!isPlainObject(secret))
    return {
      problem: `${key}: secret "${secretId}" has no JSON object under "${member}" (a shared secret holds one object per account: {"${member}": {…}, …})`,
    };
  const shape = secretShapeProblem(kind, member === undefined ? secretId : `${secretId}#${member}`, secret);
  if (shape) return { problem: `${key}: ${shape}` };
  return { secret };
}

/** Puts a secret's settings in their place in the config; an account's string values are noted for the scrubber. */
function mergeSecret(
  merged: MergedConfig,
  values: Map<string, string[]>,
  { kind, provider, id, index }: WantedSecret,
  secret: Record<string, unknown>,
): void {
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
    edgeConfig.originVerifySecrets = [secret.originVerifySecret, secret.previousOriginVerifySecret].filter(
      (value) => value !== undefined,
    );
    return;
  }
  const account = merged.accounts[provider!]![id!]!;
  merged.accounts[provider!]![id!] = deepMerge(account, secret);
  const accountValues = values.get(accountKey(provider!, id!)) ?? [];
  values.set(accountKey(provider!, id!), [...accountValues, ...stringLeaves(secret)]);
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
  const root = isPlainObject(input) ? input : {};
  const accounts = isPlainObject(root.accounts) ? root.accounts : {};
  const wanted = [...accountSecretRefs(accounts, kinds), ...relaySecretRefs(root, kinds)];
  const unreadApi = !kinds.includes('api');
  if (wanted.length === 0 && !(unreadApi && namesApiSecret(accounts)))
    return { config: input, values, texts };
  const read = options.readSecret;
  if (wanted.length && !read)
    throw new ConfigError(`${wanted[0]!.key}: the config names a secret but no secret reader was given`);

  const problems: string[] = [];
  const merged = structuredClone(input) as MergedConfig;
  if (unreadApi) dropUnreadApi(merged);
  await Promise.all(
    wanted.map(async (want) => {
      const outcome = await readSecretObject(read!, want, texts);
      if ('problem' in outcome) problems.push(outcome.problem);
      else mergeSecret(merged, values, want, outcome.secret);
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
      // Named by RELAY_CONFIG, a script's --config or the fallback: the path says which file it was.
      throw new ConfigError(`cannot read the config file ${path}: ${(cause as Error).message}`, { cause });
    }
  }
  try {
    return { parsed: JSON.parse(text), source };
  } catch (cause) {
    throw new ConfigError(`${source}: not valid JSON: ${(cause as Error).message}`, { cause });
  }
}

/**
 * Validates the callback path's sections of a config and its accounts (the callback function and the
 * buffer consumer, shared/runtime/lambda-callback.ts): the rest of the config was validated by cdk synth
 * and is not read by them.
 */
export function parseCallbackConfig(input: unknown, options: ParseConfigOptions = {}): CallbackConfig {
  return parseConfigWith(callbackConfigSchema, input, options);
}

/** Validates a config with its secrets merged in (parseConfig in load.ts, or the callback path's sections). */
export type ConfigParser<C extends CallbackConfig> = (input: unknown, options: ParseConfigOptions) => C;

/** The config with its secrets read, validated, and every value from a secret registered with the scrubber. */
async function resolveAndParse<C extends CallbackConfig>(
  parsed: unknown,
  options: LoadConfigOptions,
  parse: ConfigParser<C>,
): Promise<{ config: C; texts: Map<string, string>; values: Map<string, string[]> }> {
  const kinds = options.secretKinds ?? SECRET_KINDS;
  const resolved = await resolveSecrets(parsed, options);
  const config = parse(resolved.config, {
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

export interface RefreshingConfigOptions<
  C extends CallbackConfig = CallbackConfig,
> extends LoadConfigOptions {
  /**
   * How often a warm process reads its secrets again (through the reader, whose own cache adds its
   * TTL: Secrets Manager's reader, 5 minutes). @default DEFAULT_SECRET_REFRESH_MS (1 minute)
   */
  refreshMs?: number;
  now?: () => number;
  /** A failed refresh (the values in use stay): log it. */
  onError?: (error: Error) => void;
  /** The secrets changed and the config now holds the new values (e.g. rebuild the scrubber). */
  onChange?: (config: C) => void;
}

export interface RefreshingConfig<C extends CallbackConfig = CallbackConfig> {
  /** The config: the same object for the life of the process; a refresh updates its secret values in place. */
  readonly config: C;
  /**
   * Reads the secrets again when the last read is older than `refreshMs` (concurrent callers share one
   * read), and puts changed values into the config's accounts and edge. Never throws: a failure keeps
   * the values in use and is reported to `onError`.
   */
  refresh(): Promise<void>;
}

/**
 * Reads the config (Lambda cold start or `npm start`) and validates it with `parse`: inline JSON in
 * RELAY_CONFIG_JSON wins, else the file named by RELAY_CONFIG (in Lambda, the config layer's file), else
 * `fallbackPath`. The secrets it names, of the kinds this process reads, are merged in before validation,
 * and every value from a secret is registered with the scrubber (shared/config/secrets.ts). For a process
 * that lives on (a warm Lambda, `npm start`): secret rotation without a restart. The first load's failure
 * is thrown.
 */
export async function loadRefreshingWith<C extends CallbackConfig>(
  parse: ConfigParser<C>,
  env: NodeJS.ProcessEnv = process.env,
  fallbackPath?: string,
  options: RefreshingConfigOptions<C> = {},
): Promise<RefreshingConfig<C>> {
  const { parsed, source } = await readConfigText(env, fallbackPath);
  let first: Awaited<ReturnType<typeof resolveAndParse<C>>>;
  try {
    first = await resolveAndParse(parsed, options, parse);
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
      const fresh = await resolveAndParse(parsed, options, parse);
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
