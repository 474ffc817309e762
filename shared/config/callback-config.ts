import { ROLES } from '../domain/actor';
import * as z from '../util/zod';
import type { ResolvedAccount } from './relay-config';

export type { ResolvedAccount } from './relay-config';

/**
 * The sections of the config the callback path reads (receive, verify, store, ack; callback health; the
 * secrets it scrubs), and their schemas: the whole config's schema (schema.ts) is made of these and the
 * sections only the other functions read. The callback function and the buffer consumer validate only
 * these at cold start (shared/runtime/lambda-callback.ts), so their bundles leave out the schemas of
 * statements, badges, destinations and the rest (cdk synth has validated the whole config).
 */

export const positiveInt = z.int().check(z.positive());

export const pathSecretSchema = z
  .string()
  .check(
    z.minLength(16, 'path secrets must be at least 16 characters'),
    z.regex(/^[A-Za-z0-9_-]+$/, 'path secrets may only use A-Z a-z 0-9 _ -'),
  );

/**
 * `accounts.<provider>.<id>.allowNoPathSecret`: the reason an account of a provider whose callbacks carry
 * no other authentication (MoMo, Daraja) runs without a path secret. Without it, `cdk synth` refuses
 * such an account; `npm start` only warns.
 */
export const allowNoPathSecretSchema = z
  .string()
  .check(
    z.trim(),
    z.minLength(10, 'give the reason for running without a path secret (at least 10 characters)'),
  );

const scheduleOverrideSchema = z.strictObject({
  firstCheckSeconds: z.optional(z.number().check(z.nonnegative())),
  backoffSeconds: z.optional(z.array(z.number().check(z.positive())).check(z.minLength(1))),
  dailyAfterSeconds: z.optional(z.number().check(z.positive())),
  windowSeconds: z.optional(positiveInt),
});

/** How the poller reconciles (docs/reconciliation.md). Defaults per provider and kind: domain/reconcile-schedule.ts. */
export const reconciliationSchema = z.strictObject({
  /** One window for every provider and kind, instead of the per-kind defaults (3 days). */
  windowSeconds: z.optional(positiveInt),
  /** Per provider, per kind (or "*"): overrides of the check schedule. */
  schedules: z._default(z.record(z.string(), z.record(z.string(), scheduleOverrideSchema)), {}),
  /** Below 1 shortens every delay and window (the local simulator's business time runs faster). */
  timeScale: z._default(z.number().check(z.positive(), z.lte(1)), 1),
  /** Shards of the due index: a cycle queries each. */
  shards: z._default(positiveInt.check(z.lte(64)), 4),
  /** How long a poller holds a claimed item; a crashed poller's items come back after it. */
  leaseSeconds: z._default(positiveInt.check(z.lte(900)), 60),
  /** Items one cycle claims at most (the rest wait for the next cycle). */
  maxItemsPerCycle: z._default(positiveInt.check(z.lte(10_000)), 500),
  /** Status calls in flight at once, across accounts (each account's client has its own cap too). */
  concurrency: z._default(positiveInt.check(z.lte(64)), 8),
  /** Local runtime: seconds between poll cycles inside `npm start`. */
  pollIntervalSeconds: z._default(z.number().check(z.positive(), z.lte(3600)), 5),
  /** An AMBIGUOUS transaction older than this is escalated once (event + metric). */
  escalateAmbiguousAfterSeconds: z._default(positiveInt, 3600),
  /** AMBIGUOUS transactions keep being checked past the window, up to this age; then EXPIRED. */
  ambiguousMaxSeconds: z._default(positiveInt, 30 * 86_400),
  /** "Never accepted" (MoMo 404) settles a transaction as FAILED only when it is at least this old. */
  notFoundGraceSeconds: z._default(positiveInt, 120),
  /**
   * …and only after this many consecutive "never accepted" answers spread over `notFoundSpanSeconds`
   * (one 404 from a lagging replica settles nothing). Never while a callback reported on the reference.
   */
  notFoundAnswers: z._default(positiveInt.check(z.lte(20)), 3),
  notFoundSpanSeconds: z._default(z.int().check(z.nonnegative()), 300),
  /**
   * Callback health (docs/reconciliation.md#callback-health): an account is silent when no callback came
   * for this long while a PENDING transaction older than this waits for one. Keyed by provider or
   * `<provider>/<account>` (the account's key wins); 0 turns it off. Unset: per provider (callback-health.ts).
   */
  callbackSilenceSeconds: z._default(z.record(z.string(), z.int().check(z.nonnegative())), {}),
  /** While an account is silent, its waiting transactions are checked at least this often. */
  silencePollSeconds: z._default(positiveInt.check(z.lte(3600)), 60),
});

/**
 * `ackBudgets.<provider>`: how long a callback's direct store write may take (`storeMs`) and when its ack
 * must leave (`ackMs`); between the two the ingress buffer takes the callback (docs/ingress-buffer.md).
 * Defaults: each provider module's `ackBudget`. C2B validation keeps its own `deadlineMs`.
 */
const ackBudgetSchema = z
  .strictObject({
    storeMs: positiveInt.check(z.lte(30_000)),
    ackMs: positiveInt.check(z.lte(30_000)),
  })
  .check(
    z.refine((budget) => budget.ackMs - budget.storeMs >= 100, {
      message: 'ackMs must leave the ingress buffer at least 100 ms after storeMs',
      path: ['ackMs'],
    }),
  );

/** The header the relay's CloudFront distribution adds to every origin request (`edge.mode: "cloudfront"`). */
export const ORIGIN_VERIFY_HEADER = 'x-relay-origin-verify';

/** `edge.originVerifySecrets[]`: long random values CloudFront sends in ORIGIN_VERIFY_HEADER. */
const originVerifySecretSchema = z
  .string()
  .check(
    z.minLength(32, 'at least 32 characters (openssl rand -hex 32)'),
    z.maxLength(256),
    z.regex(/^[\w.~+/=-]+$/, 'only A-Z a-z 0-9 _ . ~ + / = -'),
  );

/**
 * `edge`: what is in front of the provider routes. `direct` (default): API Gateway (or the local server)
 * is the edge. `cloudfront`: the relay's CloudFront distribution is; callbacks without a valid
 * ORIGIN_VERIFY_HEADER are refused and the source IP is read from `CloudFront-Viewer-Address`.
 * `cloudfront-or-direct` (while moving providers to the CloudFront URL): a request with the header is
 * checked like `cloudfront`, one without it is served like `direct`.
 */
const edgeSchema = z
  .strictObject({
    mode: z._default(z.enum(['direct', 'cloudfront', 'cloudfront-or-direct']), 'direct'),
    /** Accepted values of the origin header: the current one first, then the previous one while rotating. */
    originVerifySecrets: z._default(z.array(originVerifySecretSchema).check(z.maxLength(3)), []),
    /**
     * A Secrets Manager secret holding `{"originVerifySecret": "…", "previousOriginVerifySecret": "…"}`:
     * read at cold start (and refreshed) into `originVerifySecrets`; the distribution sends
     * `originVerifySecret` through a CloudFormation dynamic reference, never as plain text.
     */
    originVerifySecretId: z.optional(z.string().check(z.regex(/^[A-Za-z0-9/_+=.@:-]{1,2048}$/))),
  })
  .check(
    z.refine(
      (edge) =>
        edge.mode === 'direct' ||
        edge.originVerifySecrets.length > 0 ||
        edge.originVerifySecretId !== undefined,
      {
        message: 'required unless mode is "direct" (or edge.originVerifySecretId names the secret)',
        path: ['originVerifySecrets'],
      },
    ),
  );

/** One named management token (docs/roles-and-audit.md#named-tokens). */
const managementTokenSchema = z
  .strictObject({
    name: z.string().check(z.regex(/^[\w.@+-]{1,64}$/, 'A-Z a-z 0-9 _ . @ + - (max 64)')),
    role: z.enum(ROLES),
    token: z.optional(z.string().check(z.minLength(16, 'at least 16 characters'))),
    secretId: z.optional(z.string().check(z.regex(/^[A-Za-z0-9/_+=.@:-]{1,2048}$/))),
  })
  .check(
    z.refine((t) => t.token !== undefined || t.secretId !== undefined, {
      message: 'the token is required (or a secretId that holds {"token": "…"})',
      path: ['token'],
    }),
  );

/** The config's sections the callback path reads; schema.ts's relayConfigCoreSchema has them too. */
export const callbackConfigShape = {
  limits: z._default(
    z.strictObject({ maxBodyBytes: z._default(positiveInt.check(z.lte(10 * 1024 * 1024)), 256 * 1024) }),
    { maxBodyBytes: 256 * 1024 },
  ),
  retention: z._default(
    z.strictObject({
      receiptDays: z._default(positiveInt, 30),
      quarantineDays: z._default(positiveInt, 30),
      transactionDays: z._default(positiveInt, 90),
    }),
    { receiptDays: 30, quarantineDays: 30, transactionDays: 90 },
  ),
  reconciliation: z._default(reconciliationSchema, reconciliationSchema.parse({})),
  management: z._default(
    z.strictObject({
      /** "iam" in the cloud (API Gateway authorizes); "bearer" locally. */
      auth: z._default(z.enum(['bearer', 'iam']), 'bearer'),
      bearerToken: z.optional(z.string().check(z.minLength(8))),
      /**
       * The key of the phone-number search index (HMAC-SHA256, util/msisdn.ts): registrations store the
       * keyed hash of the number, an exact search compares hashes. At least 32 characters; a secret (scrubbed
       * like the others, never in a URL or an answer). Without it, a search by full number finds nothing.
       * In the cloud it comes from `searchKeySecretId` (a secret holding {"searchKey": "…"}).
       */
      searchKey: z.optional(z.string().check(z.minLength(32, 'at least 32 characters'))),
      searchKeySecretId: z.optional(z.string().check(z.regex(/^[A-Za-z0-9/_+=.@:-]{1,2048}$/))),
      /**
       * Named tokens (docs/roles-and-audit.md): each person (or tool) signs in with their own token, and the
       * name and role are recorded on every action they take. `token` inline (local only) or `secretId` (a
       * secret holding {"token": "…"}).
       */
      tokens: z._default(z.array(managementTokenSchema).check(z.maxLength(100)), []),
      /**
       * The amount up to which an operator resolves by hand alone, by `provider/account` ("*": every
       * account without its own). Above it (or when the amount is unknown) a second person approves. No
       * entry: no limit.
       */
      resolveLimits: z._default(
        z.record(
          z.string().check(z.regex(/^(\*|[\w-]{1,64}\/[\w.-]{1,128})$/, '"provider/account" or "*"')),
          z.string().check(z.regex(/^\d{1,15}(\.\d{1,6})?$/, 'a decimal amount such as "5000" or "99.50"')),
        ),
        {},
      ),
      /** How long a resolution waiting for approval stays open before it expires. */
      approvalTtlSeconds: z._default(positiveInt.check(z.lte(30 * 86_400)), 86_400),
    }),
    { auth: 'bearer', tokens: [], resolveLimits: {}, approvalTtlSeconds: 86_400 },
  ),
  ackBudgets: z._default(z.record(z.string(), ackBudgetSchema), {}),
  edge: z._default(edgeSchema, { mode: 'direct', originVerifySecrets: [] }),
  /** accounts.<provider>.<accountId> = provider-specific settings (validated by each provider module). */
  accounts: z._default(z.record(z.string(), z.record(z.string(), z.unknown())), {}),
};

/**
 * The callback path's sections of a config (other sections are dropped, not refused: they were checked
 * at synth, and the callback function reads the same config file as the others).
 */
// Pure: the bundles that parse the whole config leave this object schema out.
export const callbackConfigSchema = /* @__PURE__ */ z.object(callbackConfigShape);

/** The config the callback path reads: its sections, with the accounts resolved (load.ts). */
export interface CallbackConfig extends Omit<z.infer<typeof callbackConfigSchema>, 'accounts'> {
  /** Keyed by `${provider}/${accountId}`. */
  accounts: ReadonlyMap<string, ResolvedAccount>;
}

export function accountKey(provider: string, accountId: string): string {
  return `${provider}/${accountId}`;
}
