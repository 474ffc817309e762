import * as z from '../util/zod';
import { STATEMENT_SOURCES } from '../domain/statement';
import { TIME_FORMATS } from '../domain/statement-layouts';
import { isTimeZone } from '../util/time-zone';
import { DEFAULT_DESTINATION_TYPE, destinationTypeIds, findDestinationType } from '../destinations/registry';
import { SECRET_REF_PATTERN } from './secret-reader';
import { accountKey, callbackConfigShape, positiveInt } from './callback-config';
import type { ProviderRecordsConfig, RelayConfigSections } from './relay-config';

// The callback path's sections live in callback-config.ts (the callback bundles import only that file).
export { accountKey, ORIGIN_VERIFY_HEADER, reconciliationSchema } from './callback-config';
// The config's types, written out for the package's declarations (relay-config.ts); checked below.
export type {
  BadgeShopConfig,
  DestinationConfig,
  ProviderRecordsConfig,
  RelayConfig,
  ResolvedAccount,
} from './relay-config';

/** Per-account timings of the pull and the balance snapshots (each key falls back to the section's own). */
const providerRecordTimingsSchema = z.strictObject({
  /** Seconds between two pulls of the account (Daraja Pull Transactions). */
  pullIntervalSeconds: z.optional(positiveInt.check(z.gte(60), z.lte(86_400))),
  /** How far back each pull asks: the overlap catches rows the provider posts late. */
  pullLookBackSeconds: z.optional(positiveInt.check(z.gte(60), z.lte(48 * 3600))),
  /** A ticket when the last good pull is older than this. */
  pullTicketAfterSeconds: z.optional(positiveInt),
  /** A page when it is older than this (before the provider's 48 h window closes on unpulled rows). */
  pullPageAfterSeconds: z.optional(positiveInt.check(z.lt(48 * 3600))),
  /** Seconds between two balance snapshots; 0 takes none for this account. */
  balanceIntervalSeconds: z.optional(z.int().check(z.nonnegative(), z.lte(86_400))),
});

/**
 * `providerRecords`: the provider's own records of money moved that the poller fetches (issue 29;
 * docs/pull-and-balances.md): the Daraja pull (every 15 min over the last 2 h by default; a ticket after
 * 12 h without a good pull, a page after 36 h, before Daraja's 48 h look-back loses rows) and the balance
 * snapshots (hourly). `accounts.<provider>/<account>` overrides any timing for one account.
 */
const providerRecordsSchema = z
  .strictObject({
    pullIntervalSeconds: z._default(positiveInt.check(z.gte(60), z.lte(86_400)), 900),
    pullLookBackSeconds: z._default(positiveInt.check(z.gte(60), z.lte(48 * 3600)), 7200),
    pullTicketAfterSeconds: z._default(positiveInt, 12 * 3600),
    pullPageAfterSeconds: z._default(positiveInt.check(z.lt(48 * 3600)), 36 * 3600),
    /**
     * Each pull's window ends this long before now: Daraja lists a C2B payment before its confirmation
     * reaches the relay (posted after completion, seconds later), and a row pulled in that gap would be
     * recorded as "no callback ever came". Younger rows are read by the next pull, whose look-back overlaps.
     */
    pullGraceSeconds: z._default(z.int().check(z.nonnegative(), z.lte(3600)), 120),
    /** Pages of one pull at most (OffSetValue paging); a window with more rows is pulled on, next time. */
    pullMaxPages: z._default(positiveInt.check(z.lte(1000)), 50),
    balanceIntervalSeconds: z._default(z.int().check(z.nonnegative(), z.lte(86_400)), 3600),
    accounts: z._default(z.record(z.string(), providerRecordTimingsSchema), {}),
  })
  .check(
    // A grace as long as the look-back leaves the window nothing to read.
    z.refine(
      (records) =>
        [records, ...Object.values(records.accounts)].every(
          (t) => (t.pullLookBackSeconds ?? records.pullLookBackSeconds) > records.pullGraceSeconds,
        ),
      {
        message:
          "pullGraceSeconds must be shorter than every pullLookBackSeconds (the section's and each account's)",
        path: ['pullGraceSeconds'],
      },
    ),
  );

/** One account's timings: its own overrides over the section's values. */
export function providerRecordTimings(
  config: ProviderRecordsConfig,
  provider: string,
  account: string,
): Required<z.infer<typeof providerRecordTimingsSchema>> {
  const own = config.accounts[accountKey(provider, account)] ?? {};
  return {
    pullIntervalSeconds: own.pullIntervalSeconds ?? config.pullIntervalSeconds,
    pullLookBackSeconds: own.pullLookBackSeconds ?? config.pullLookBackSeconds,
    pullTicketAfterSeconds: own.pullTicketAfterSeconds ?? config.pullTicketAfterSeconds,
    pullPageAfterSeconds: own.pullPageAfterSeconds ?? config.pullPageAfterSeconds,
    balanceIntervalSeconds: own.balanceIntervalSeconds ?? config.balanceIntervalSeconds,
  };
}

/**
 * `badges.shops.<shop>`: one shop's badge API, read by the poller (docs/badges.md). The credential
 * (`auth.password` / `auth.token`) may come from `secretId` instead: its JSON object is merged into
 * `auth` when the shop is read (only the poller reads it).
 */
const badgeShopSchema = z
  .strictObject({
    baseUrl: z.url({ protocol: /^https?$/ }),
    restPrefix: z._default(
      z.string().check(z.regex(/^[\w.~-]+(\/[\w.~-]+)*$/, 'path segments of A-Z a-z 0-9 _ . ~ -')),
      'wp-json',
    ),
    auth: z._default(
      z.discriminatedUnion('type', [
        z.strictObject({ type: z.literal('none') }),
        z.strictObject({
          type: z.literal('basic'),
          username: z.string().check(z.minLength(1)),
          password: z.optional(z.string().check(z.minLength(1))),
        }),
        z.strictObject({ type: z.literal('bearer'), token: z.optional(z.string().check(z.minLength(1))) }),
      ]),
      { type: 'none' },
    ),
    secretId: z.optional(z.string().check(z.regex(/^[\w/+=.@:-]{1,2048}$/))),
    pollSeconds: z._default(positiveInt.check(z.lte(86_400)), 60),
    timeoutMs: z._default(positiveInt.check(z.lte(30_000)), 5_000),
  })
  .check(
    z.refine(
      (shop) =>
        shop.secretId !== undefined ||
        (shop.auth.type === 'basic'
          ? !!shop.auth.password
          : shop.auth.type !== 'bearer' || !!shop.auth.token),
      { message: 'the password or token is required (or a secretId that holds it)', path: ['auth'] },
    ),
  );

const timeZoneSchema = z.string().check(z.refine(isTimeZone, 'an IANA time zone, e.g. Africa/Nairobi'));
const headerSchema = z.string().check(z.minLength(1), z.maxLength(200));

/**
 * `statements.accounts."<provider>/<account>"`: how an account's statements are matched and its days
 * closed (docs/statements.md#tolerances). Unset keys take the provider's defaults (domain/statement-match.ts).
 */
const statementAccountSchema = z.strictObject({
  timeZone: z.optional(timeZoneSchema),
  /** After-hours cut-off, local HH:MM: rows at or after it belong to the next business day. */
  cutoff: z.optional(z.string().check(z.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM, 00:00 to 23:59'))),
  amountTolerance: z.optional(
    z.string().check(z.regex(/^\d+(\.\d+)?$/, 'a decimal string such as "0" or "1.00"')),
  ),
  timeToleranceSeconds: z.optional(z.int().check(z.nonnegative(), z.lte(86_400))),
  slaSeconds: z.optional(positiveInt.check(z.lte(30 * 86_400))),
  expectedSources: z.optional(z.array(z.enum(STATEMENT_SOURCES))),
});

/** `statements.templates.<name>`: a declarative column template for any other file (docs/statements.md#templates). */
const columnTemplateSchema = z
  .strictObject({
    columns: z.strictObject({
      providerId: headerSchema,
      time: headerSchema,
      externalId: z.optional(headerSchema),
      amountIn: z.optional(headerSchema),
      amountOut: z.optional(headerSchema),
      amount: z.optional(headerSchema),
      direction: z.optional(headerSchema),
      fee: z.optional(headerSchema),
      status: z.optional(headerSchema),
      counterparty: z.optional(headerSchema),
      kind: z.optional(headerSchema),
      linkedProviderId: z.optional(headerSchema),
      balance: z.optional(headerSchema),
      currency: z.optional(headerSchema),
    }),
    timeFormat: z.enum(TIME_FORMATS),
    timeZone: z.optional(timeZoneSchema),
    kinds: z.optional(
      z.strictObject({
        fee: z.optional(z.array(headerSchema)),
        reversal: z.optional(z.array(headerSchema)),
        other: z.optional(z.array(headerSchema)),
      }),
    ),
    directions: z.optional(
      z.strictObject({
        in: z.array(headerSchema).check(z.minLength(1)),
        out: z.array(headerSchema).check(z.minLength(1)),
      }),
    ),
    currency: z.optional(z.string().check(z.regex(/^[A-Z]{3}$/))),
    delimiter: z.optional(z.enum([',', ';', '\t', '|'])),
  })
  .check(
    // An unsigned amount needs its direction column and that column's words, or nothing says in from out.
    z.refine((t) => (t.columns.direction === undefined) === (t.directions === undefined), {
      message: 'columns.direction and directions go together: the column, and its words for in and out',
      path: ['directions'],
    }),
    z.refine((t) => t.columns.direction === undefined || t.columns.amount !== undefined, {
      message: 'columns.direction decides the sign of columns.amount: name the amount column',
      path: ['columns', 'amount'],
    }),
  );

const statementsSchema = z.strictObject({
  accounts: z._default(
    z.record(z.string().check(z.regex(/^[\w-]+\/[\w.-]+$/, '<provider>/<account>')), statementAccountSchema),
    {},
  ),
  templates: z._default(
    z.record(z.string().check(z.regex(/^[\w-]{1,64}$/, 'A-Z a-z 0-9 _ - (max 64)')), columnTemplateSchema),
    {},
  ),
});

/**
 * A Standard Webhooks signing secret: `whsec_` and the padded base64 of 24 to 64 random bytes
 * (docs/webhooks.md). Padded and whole, as the strict receivers decode it (the Python and Go reference
 * libraries, the subscriber kit): a secret only the lenient ones take would fail every delivery there.
 */
export const webhookSecretSchema = z.string().check(
  z.regex(
    /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
    'a Standard Webhooks secret: whsec_ + padded base64 of 24 to 64 random bytes',
  ),
  z.refine((secret) => {
    const bytes = Buffer.from(secret.slice('whsec_'.length), 'base64').length;
    return bytes >= 24 && bytes <= 64;
  }, 'a Standard Webhooks secret: whsec_ + padded base64 of 24 to 64 random bytes'),
);

/** The Standard Webhooks example's time-out, and the longest a destination may set (`timeoutMs`). */
export const DELIVERY_TIMEOUT_MS = 15_000;

/** The Standard Webhooks specification's example retry schedule, in seconds after the first attempt's turn. */
export const DEFAULT_RETRY_SCHEDULE_SECONDS = [0, 5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400];

/** The fields every destination has, whatever its type; the others are its type's (shared/destinations/). */
const destinationCommonShape = {
  /** Its destination type (shared/destinations/registry.ts): `https` (the default) or `sqs`. */
  type: z._default(z.string(), DEFAULT_DESTINATION_TYPE),
  /** Empty or absent: every value. An event is delivered when it passes all three. */
  filter: z._default(
    z.strictObject({
      eventTypes: z._default(z.array(z.string().check(z.minLength(1))), []),
      providers: z._default(z.array(z.string().check(z.minLength(1))), []),
      accounts: z._default(z.array(z.string().check(z.minLength(1))), []),
    }),
    { eventTypes: [], providers: [], accounts: [] },
  ),
  /** The signing secrets, current first; two while rotating (both signatures are sent). Local configs only. */
  signingSecrets: z._default(z.array(webhookSecretSchema).check(z.maxLength(2)), []),
  /**
   * A Secrets Manager secret holding `{"signingSecret": "whsec_…", "previousSigningSecret": "whsec_…"}`,
   * read by the delivery function (the secrets never sit in the config or a template).
   */
  signingSecretId: z.optional(z.string().check(z.regex(/^[A-Za-z0-9/_+=.@:-]{1,2048}$/))),
  /** Deliveries started per second at most, and in flight at once, to this destination. */
  ratePerSecond: z._default(z.number().check(z.positive(), z.lte(1000)), 10),
  concurrency: z._default(positiveInt.check(z.lte(100)), 4),
  /** Seconds, each after the previous failure: the first entry is the first attempt's delay. */
  retryScheduleSeconds: z._default(
    z.array(z.number().check(z.nonnegative(), z.lte(86_400))).check(z.minLength(1), z.maxLength(20)),
    DEFAULT_RETRY_SCHEDULE_SECONDS,
  ),
  /** Consecutive failed attempts (across events) after which the destination is disabled. */
  disableAfterFailures: z._default(positiveInt.check(z.lte(10_000)), 20),
  /**
   * Milliseconds one attempt may take, the whole exchange: the Standard Webhooks example's 15 s by default
   * and at most (the AWS delivery function's timeout and visibility are sized for it); shorter suits a
   * partner that answers at once, and a test that must see a time-out without waiting 15 s.
   */
  timeoutMs: z._default(positiveInt.check(z.gte(100), z.lte(DELIVERY_TIMEOUT_MS)), DELIVERY_TIMEOUT_MS),
};
type DestinationCommon = z.infer<z.ZodMiniObject<typeof destinationCommonShape, z.core.$strict>>;
const COMMON_DESTINATION_KEYS = new Set(Object.keys(destinationCommonShape));

/**
 * `destinations.<name>`: where the normalized events go as signed Standard Webhooks (docs/webhooks.md):
 * the common fields above, and its type's own fields beside them (`url` for https; `queue`, `roleArn`,
 * `externalId` for sqs), validated by the type's schema and kept as `settings`.
 */
export const destinationSchema = z.pipe(
  z.looseObject(destinationCommonShape),
  z.transform((value, ctx) => {
    const type = findDestinationType(value.type);
    if (!type) {
      ctx.issues.push({
        code: 'custom',
        input: value.type,
        path: ['type'],
        message: `unknown destination type "${value.type}" (known: ${destinationTypeIds().join(', ')})`,
      });
      return z.NEVER;
    }
    const common: Record<string, unknown> = {};
    const own: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value))
      (COMMON_DESTINATION_KEYS.has(key) ? common : own)[key] = field;
    const settings = z.safeParse(type.settingsSchema, own);
    if (!settings.success) {
      for (const issue of settings.error.issues) ctx.issues.push({ ...issue, input: undefined });
      return z.NEVER;
    }
    return { ...(common as DestinationCommon), settings: settings.data };
  }),
);

export const relayConfigCoreSchema = z.strictObject({
  /** Base of every URL the relay hands out (MoMo X-Callback-Url, Daraja registrations). */
  publicBaseUrl: z._default(z.url(), 'http://localhost:3000'),
  events: z._default(
    z.strictObject({
      source: z._default(z.string().check(z.minLength(1)), 'mobile-money.relay'),
      busName: z._default(z.string().check(z.minLength(1)), 'default'),
    }),
    { source: 'mobile-money.relay', busName: 'default' },
  ),
  limits: callbackConfigShape.limits,
  retention: callbackConfigShape.retention,
  reconciliation: callbackConfigShape.reconciliation,
  management: callbackConfigShape.management,
  urlRules: z._default(z.strictObject({ requireHttps: z._default(z.boolean(), false) }), {
    requireHttps: false,
  }),
  local: z._default(
    z.strictObject({
      eventsFile: z._default(z.string().check(z.minLength(1)), '.relay/events.ndjson'),
      /** The local server has no API Gateway in front; X-Forwarded-For stands in for the source IP. */
      trustForwardedFor: z._default(z.boolean(), true),
    }),
    { eventsFile: '.relay/events.ndjson', trustForwardedFor: true },
  ),
  ackBudgets: callbackConfigShape.ackBudgets,
  /**
   * Where the ingress buffer's seal key lives (docs/ingress-buffer.md#trust-the-seal): a secret the
   * config already names, as `<secret>#<member>` (its member holds 64 random characters), so that no
   * secret of its own bills $0.40 a month; absent, the construct generates one. Never read at runtime
   * from here: the construct hands the reference to the callback and buffer-consumer functions.
   */
  ingressBuffer: z.optional(
    z.strictObject({
      sealSecretId: z
        .string()
        .check(z.regex(SECRET_REF_PATTERN, 'a secret id, optionally "#" and a member name')),
    }),
  ),
  edge: callbackConfigShape.edge,
  /** The badge change feed: badges.shops.<shopId> (docs/badges.md). */
  badges: z._default(
    z.strictObject({
      shops: z.record(
        z.string().check(z.regex(/^[\w-]{1,64}$/, 'A-Z a-z 0-9 _ - (max 64)')),
        badgeShopSchema,
      ),
    }),
    { shops: {} },
  ),
  /** The provider's own records: per-account matching settings and column templates (docs/statements.md). */
  statements: z._default(statementsSchema, { accounts: {}, templates: {} }),
  providerRecords: z._default(providerRecordsSchema, providerRecordsSchema.parse({})),
  /** destinations.<name>: signed webhook deliveries to partners' endpoints (docs/webhooks.md). */
  destinations: z._default(
    z.record(z.string().check(z.regex(/^[\w-]{1,64}$/, 'A-Z a-z 0-9 _ - (max 64)')), destinationSchema),
    {},
  ),
  accounts: callbackConfigShape.accounts,
});

/**
 * relay-config.ts writes the config's type out (the package's declarations need it without the schemas):
 * this type fails to compile, saying so, when the schema's output and that type differ in any property's
 * type, optionality or readonly.
 */
type _ConfigTypeIsTheSchemas = Expect<
  (<T>() => T extends Omit<z.infer<typeof relayConfigCoreSchema>, 'accounts'> ? 1 : 2) extends <
    T,
  >() => T extends RelayConfigSections ? 1 : 2
    ? 'same'
    : 'relayConfigCoreSchema and RelayConfigSections (relay-config.ts) differ: change the type with the schema'
>;
type Expect<_T extends 'same'> = true;
