import type { Role } from '../domain/actor';
import type { StatementSource } from '../domain/statement';

/**
 * The validated config's type, written out: the construct's `config` has it, so the package's declarations
 * (emitted file by file: scripts/declarations.ts) need it without inferring it from the zod schemas. The
 * schemas stay the one place the config's rules and defaults live: schema.ts fails to compile unless
 * `RelayConfigSections` is exactly what relayConfigCoreSchema outputs. What each setting means:
 * schema.ts and callback-config.ts, and docs/configuration.md.
 */

/** An account of `accounts.<provider>.<id>`, its secrets merged in (load.ts). */
export interface ResolvedAccount {
  provider: string;
  id: string;
  pathSecret: string | undefined;
  /**
   * While rotating: the path secret before `pathSecret`, still accepted (each use logged and counted as
   * `PreviousPathSecretUsed`) until it is removed from the account's callback secret.
   */
  previousPathSecret?: string;
  /** Why the account runs without a path secret (`allowNoPathSecret`), when it says so. */
  allowNoPathSecret?: string;
  settings: Record<string, unknown>;
}

/** `reconciliation.schedules.<provider>.<kind>`. */
interface ScheduleOverride {
  firstCheckSeconds?: number | undefined;
  backoffSeconds?: number[] | undefined;
  dailyAfterSeconds?: number | undefined;
  windowSeconds?: number | undefined;
}

/** `reconciliation`. */
interface ReconciliationConfig {
  windowSeconds?: number | undefined;
  schedules: Record<string, Record<string, ScheduleOverride>>;
  timeScale: number;
  shards: number;
  leaseSeconds: number;
  maxItemsPerCycle: number;
  concurrency: number;
  pollIntervalSeconds: number;
  escalateAmbiguousAfterSeconds: number;
  ambiguousMaxSeconds: number;
  notFoundGraceSeconds: number;
  notFoundAnswers: number;
  notFoundSpanSeconds: number;
  callbackSilenceSeconds: Record<string, number>;
  silencePollSeconds: number;
}

/** `management.tokens[]`. */
interface ManagementToken {
  name: string;
  role: Role;
  token?: string | undefined;
  secretId?: string | undefined;
}

/** `management`. */
interface ManagementConfig {
  auth: 'bearer' | 'iam';
  bearerToken?: string | undefined;
  searchKey?: string | undefined;
  searchKeySecretId?: string | undefined;
  tokens: ManagementToken[];
  resolveLimits: Record<string, string>;
  approvalTtlSeconds: number;
}

/** `edge`. */
interface EdgeConfig {
  mode: 'direct' | 'cloudfront' | 'cloudfront-or-direct';
  originVerifySecrets: string[];
  originVerifySecretId?: string | undefined;
}

/** `badges.shops.<shop>`. */
export interface BadgeShopConfig {
  baseUrl: string;
  restPrefix: string;
  auth:
    | { type: 'none' }
    | { type: 'basic'; username: string; password?: string | undefined }
    | { type: 'bearer'; token?: string | undefined };
  secretId?: string | undefined;
  pollSeconds: number;
  timeoutMs: number;
}

/** `statements.accounts."<provider>/<account>"`. */
interface StatementAccountConfig {
  timeZone?: string | undefined;
  cutoff?: string | undefined;
  amountTolerance?: string | undefined;
  timeToleranceSeconds?: number | undefined;
  slaSeconds?: number | undefined;
  expectedSources?: StatementSource[] | undefined;
}

/** `statements.templates.<name>`. */
interface ColumnTemplateConfig {
  columns: {
    providerId: string;
    time: string;
    externalId?: string | undefined;
    amountIn?: string | undefined;
    amountOut?: string | undefined;
    amount?: string | undefined;
    direction?: string | undefined;
    fee?: string | undefined;
    status?: string | undefined;
    counterparty?: string | undefined;
    kind?: string | undefined;
    linkedProviderId?: string | undefined;
    balance?: string | undefined;
    currency?: string | undefined;
  };
  timeFormat:
    | 'YYYY-MM-DD HH:mm:ss'
    | 'DD-MM-YYYY HH:mm:ss'
    | 'DD/MM/YYYY HH:mm:ss'
    | 'MM/DD/YYYY HH:mm:ss'
    | 'YYYYMMDDHHmmss'
    | 'ISO';
  timeZone?: string | undefined;
  kinds?:
    { fee?: string[] | undefined; reversal?: string[] | undefined; other?: string[] | undefined } | undefined;
  directions?: { in: string[]; out: string[] } | undefined;
  currency?: string | undefined;
  delimiter?: ',' | ';' | '\t' | '|' | undefined;
}

/** `providerRecords.accounts.<provider>/<account>`: overrides of the section's timings. */
interface ProviderRecordTimingOverrides {
  pullIntervalSeconds?: number | undefined;
  pullLookBackSeconds?: number | undefined;
  pullTicketAfterSeconds?: number | undefined;
  pullPageAfterSeconds?: number | undefined;
  balanceIntervalSeconds?: number | undefined;
}

/** `providerRecords`. */
export interface ProviderRecordsConfig {
  pullIntervalSeconds: number;
  pullLookBackSeconds: number;
  pullTicketAfterSeconds: number;
  pullPageAfterSeconds: number;
  pullGraceSeconds: number;
  pullMaxPages: number;
  balanceIntervalSeconds: number;
  accounts: Record<string, ProviderRecordTimingOverrides>;
}

/** `destinations.<name>`, its type's own fields as `settings`. */
export interface DestinationConfig {
  type: string;
  filter: { eventTypes: string[]; providers: string[]; accounts: string[] };
  signingSecrets: string[];
  signingSecretId?: string | undefined;
  ratePerSecond: number;
  concurrency: number;
  retryScheduleSeconds: number[];
  disableAfterFailures: number;
  timeoutMs: number;
  settings: unknown;
}

/** Every section of the config but `accounts`, as relayConfigCoreSchema outputs them. */
export interface RelayConfigSections {
  publicBaseUrl: string;
  events: { source: string; busName: string };
  limits: { maxBodyBytes: number };
  retention: { receiptDays: number; quarantineDays: number; transactionDays: number };
  reconciliation: ReconciliationConfig;
  management: ManagementConfig;
  urlRules: { requireHttps: boolean };
  local: { eventsFile: string; trustForwardedFor: boolean };
  ackBudgets: Record<string, { storeMs: number; ackMs: number }>;
  ingressBuffer?: { sealSecretId: string } | undefined;
  edge: EdgeConfig;
  badges: { shops: Record<string, BadgeShopConfig> };
  statements: {
    accounts: Record<string, StatementAccountConfig>;
    templates: Record<string, ColumnTemplateConfig>;
  };
  providerRecords: ProviderRecordsConfig;
  destinations: Record<string, DestinationConfig>;
}

/** The validated config (load.ts), its accounts resolved. */
export interface RelayConfig extends RelayConfigSections {
  /** Keyed by `${provider}/${accountId}`. */
  accounts: ReadonlyMap<string, ResolvedAccount>;
}
