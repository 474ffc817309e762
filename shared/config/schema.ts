import * as z from 'zod';

const positiveInt = z.number().int().positive();

export const pathSecretSchema = z
  .string()
  .min(16, 'path secrets must be at least 16 characters')
  .regex(/^[A-Za-z0-9_-]+$/, 'path secrets may only use A-Z a-z 0-9 _ -');

/**
 * `accounts.<provider>.<id>.allowNoPathSecret`: the reason an account of a provider whose callbacks carry
 * no other authentication (MoMo, Daraja) runs without a path secret. Without it, `cdk synth` refuses
 * such an account; `npm start` only warns.
 */
export const allowNoPathSecretSchema = z
  .string()
  .trim()
  .min(10, 'give the reason for running without a path secret (at least 10 characters)');

const scheduleOverrideSchema = z
  .object({
    firstCheckSeconds: z.number().nonnegative().optional(),
    backoffSeconds: z.array(z.number().positive()).min(1).optional(),
    dailyAfterSeconds: z.number().positive().optional(),
    windowSeconds: positiveInt.optional(),
  })
  .strict();

/** How the poller reconciles (docs/reconciliation.md). Defaults per provider and kind: domain/reconcile-schedule.ts. */
export const reconciliationSchema = z
  .object({
    /** One window for every provider and kind, instead of the per-kind defaults (3 days). */
    windowSeconds: positiveInt.optional(),
    /** Per provider, per kind (or "*"): overrides of the check schedule. */
    schedules: z.record(z.string(), z.record(z.string(), scheduleOverrideSchema)).default({}),
    /** Below 1 shortens every delay and window (the local simulator's business time runs faster). */
    timeScale: z.number().positive().max(1).default(1),
    /** Shards of the due index: a cycle queries each. */
    shards: positiveInt.max(64).default(4),
    /** How long a poller holds a claimed item; a crashed poller's items come back after it. */
    leaseSeconds: positiveInt.max(900).default(60),
    /** Items one cycle claims at most (the rest wait for the next cycle). */
    maxItemsPerCycle: positiveInt.max(10_000).default(500),
    /** Status calls in flight at once, across accounts (each account's client has its own cap too). */
    concurrency: positiveInt.max(64).default(8),
    /** Local runtime: seconds between poll cycles inside `npm start`. */
    pollIntervalSeconds: z.number().positive().max(3600).default(5),
    /** An AMBIGUOUS transaction older than this is escalated once (event + metric). */
    escalateAmbiguousAfterSeconds: positiveInt.default(3600),
    /** AMBIGUOUS transactions keep being checked past the window, up to this age; then EXPIRED. */
    ambiguousMaxSeconds: positiveInt.default(30 * 86_400),
    /** "Never accepted" (MoMo 404) settles a transaction as FAILED only when it is at least this old. */
    notFoundGraceSeconds: positiveInt.default(120),
    /**
     * …and only after this many consecutive "never accepted" answers spread over `notFoundSpanSeconds`
     * (one 404 from a lagging replica settles nothing). Never while a callback reported on the reference.
     */
    notFoundAnswers: positiveInt.max(20).default(3),
    notFoundSpanSeconds: z.number().int().nonnegative().default(300),
    /**
     * Callback health (docs/reconciliation.md#callback-health): an account is silent when no callback came
     * for this long while a PENDING transaction older than this waits for one. Keyed by provider or
     * `<provider>/<account>` (the account's key wins); 0 turns it off. Unset: per provider (callback-health.ts).
     */
    callbackSilenceSeconds: z.record(z.string(), z.number().int().nonnegative()).default({}),
    /** While an account is silent, its waiting transactions are checked at least this often. */
    silencePollSeconds: positiveInt.max(3600).default(60),
  })
  .strict();

/**
 * `ackBudgets.<provider>`: how long a callback's direct store write may take (`storeMs`) and when its ack
 * must leave (`ackMs`); between the two the ingress buffer takes the callback (docs/ingress-buffer.md).
 * Defaults: each provider module's `ackBudget`. C2B validation keeps its own `deadlineMs`.
 */
export const ackBudgetSchema = z
  .object({
    storeMs: positiveInt.max(30_000),
    ackMs: positiveInt.max(30_000),
  })
  .strict()
  .refine((budget) => budget.ackMs - budget.storeMs >= 100, {
    message: 'ackMs must leave the ingress buffer at least 100 ms after storeMs',
    path: ['ackMs'],
  });

/** The header the relay's CloudFront distribution adds to every origin request (`edge.mode: "cloudfront"`). */
export const ORIGIN_VERIFY_HEADER = 'x-relay-origin-verify';

/** `edge.originVerifySecrets[]`: long random values CloudFront sends in ORIGIN_VERIFY_HEADER. */
const originVerifySecretSchema = z
  .string()
  .min(32, 'at least 32 characters (openssl rand -hex 32)')
  .max(256)
  .regex(/^[\w.~+/=-]+$/, 'only A-Z a-z 0-9 _ . ~ + / = -');

/**
 * `edge`: what is in front of the provider routes. `direct` (default): API Gateway (or the local server)
 * is the edge. `cloudfront`: the relay's CloudFront distribution is; callbacks without a valid
 * ORIGIN_VERIFY_HEADER are refused and the source IP is read from `CloudFront-Viewer-Address`.
 * `cloudfront-or-direct` (while moving providers to the CloudFront URL): a request with the header is
 * checked like `cloudfront`, one without it is served like `direct`.
 */
const edgeSchema = z
  .object({
    mode: z.enum(['direct', 'cloudfront', 'cloudfront-or-direct']).default('direct'),
    /** Accepted values of the origin header: the current one first, then the previous one while rotating. */
    originVerifySecrets: z.array(originVerifySecretSchema).max(3).default([]),
  })
  .strict()
  .refine((edge) => edge.mode === 'direct' || edge.originVerifySecrets.length > 0, {
    message: 'required unless mode is "direct"',
    path: ['originVerifySecrets'],
  });

/**
 * `badges.shops.<shop>`: one shop's badge API, read by the poller (docs/badges.md). The credential
 * (`auth.password` / `auth.token`) may come from `secretId` instead: its JSON object is merged into
 * `auth` when the shop is read (only the poller reads it).
 */
const badgeShopSchema = z
  .object({
    baseUrl: z.url({ protocol: /^https?$/ }),
    restPrefix: z
      .string()
      .regex(/^[\w.~-]+(\/[\w.~-]+)*$/, 'path segments of A-Z a-z 0-9 _ . ~ -')
      .default('wp-json'),
    auth: z
      .discriminatedUnion('type', [
        z.object({ type: z.literal('none') }).strict(),
        z
          .object({
            type: z.literal('basic'),
            username: z.string().min(1),
            password: z.string().min(1).optional(),
          })
          .strict(),
        z.object({ type: z.literal('bearer'), token: z.string().min(1).optional() }).strict(),
      ])
      .default({ type: 'none' }),
    secretId: z
      .string()
      .regex(/^[\w/+=.@:-]{1,2048}$/)
      .optional(),
    pollSeconds: positiveInt.max(86_400).default(60),
    timeoutMs: positiveInt.max(30_000).default(5_000),
  })
  .strict()
  .refine(
    (shop) =>
      shop.secretId !== undefined ||
      (shop.auth.type === 'basic' ? !!shop.auth.password : shop.auth.type !== 'bearer' || !!shop.auth.token),
    { message: 'the password or token is required (or a secretId that holds it)', path: ['auth'] },
  );

export type BadgeShopConfig = z.infer<typeof badgeShopSchema>;

export const relayConfigCoreSchema = z
  .object({
    /** Base of every URL the relay hands out (MoMo X-Callback-Url, Daraja registrations). */
    publicBaseUrl: z.url().default('http://localhost:3000'),
    events: z
      .object({
        source: z.string().min(1).default('mobile-money.relay'),
        busName: z.string().min(1).default('default'),
      })
      .strict()
      .default({ source: 'mobile-money.relay', busName: 'default' }),
    limits: z
      .object({ maxBodyBytes: positiveInt.max(10 * 1024 * 1024).default(256 * 1024) })
      .strict()
      .default({ maxBodyBytes: 256 * 1024 }),
    retention: z
      .object({
        receiptDays: positiveInt.default(30),
        quarantineDays: positiveInt.default(30),
        transactionDays: positiveInt.default(400),
      })
      .strict()
      .default({ receiptDays: 30, quarantineDays: 30, transactionDays: 400 }),
    reconciliation: reconciliationSchema.default(reconciliationSchema.parse({})),
    management: z
      .object({
        /** "iam" in the cloud (API Gateway authorizes); "bearer" locally. */
        auth: z.enum(['bearer', 'iam']).default('bearer'),
        bearerToken: z.string().min(8).optional(),
      })
      .strict()
      .default({ auth: 'bearer' }),
    urlRules: z
      .object({ requireHttps: z.boolean().default(false) })
      .strict()
      .default({ requireHttps: false }),
    local: z
      .object({
        eventsFile: z.string().min(1).default('.relay/events.ndjson'),
        /** The local server has no API Gateway in front; X-Forwarded-For stands in for the source IP. */
        trustForwardedFor: z.boolean().default(true),
      })
      .strict()
      .default({ eventsFile: '.relay/events.ndjson', trustForwardedFor: true }),
    ackBudgets: z.record(z.string(), ackBudgetSchema).default({}),
    edge: edgeSchema.default({ mode: 'direct', originVerifySecrets: [] }),
    /** The badge change feed: badges.shops.<shopId> (docs/badges.md). */
    badges: z
      .object({
        shops: z.record(z.string().regex(/^[\w-]{1,64}$/, 'A-Z a-z 0-9 _ - (max 64)'), badgeShopSchema),
      })
      .strict()
      .default({ shops: {} }),
    /** accounts.<provider>.<accountId> = provider-specific settings (validated by each provider module). */
    accounts: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
  })
  .strict();

export type RelayConfigCore = z.infer<typeof relayConfigCoreSchema>;

export interface ResolvedAccount {
  provider: string;
  id: string;
  pathSecret: string | undefined;
  /** Why the account runs without a path secret (`allowNoPathSecret`), when it says so. */
  allowNoPathSecret?: string;
  settings: Record<string, unknown>;
}

export interface RelayConfig extends Omit<RelayConfigCore, 'accounts'> {
  /** Keyed by `${provider}/${accountId}`. */
  accounts: ReadonlyMap<string, ResolvedAccount>;
}

export function accountKey(provider: string, accountId: string): string {
  return `${provider}/${accountId}`;
}
