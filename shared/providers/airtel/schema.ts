import * as z from '../../util/zod';

/** Hash recipe ids. Shared verbatim with the provider simulator (simulator/airtel/hash.ts), which signs with them. */
export const AIRTEL_HASH_RECIPES = [
  'stringify-without-hash',
  'stringify-transaction',
  'raw-without-hash',
  'header-hex',
] as const;
export type AirtelHashRecipe = (typeof AIRTEL_HASH_RECIPES)[number];

const AIRTEL_HASH_MODES = ['enforce', 'log-only', 'off'] as const;
export type AirtelHashMode = (typeof AIRTEL_HASH_MODES)[number];

/**
 * Airtel's callback URL is set once in the application settings, so the callback does not say which
 * operation it is about; `payment` (push payment) is the only one Airtel's docs document callbacks for.
 */
export const AIRTEL_KINDS = ['payment', 'refund', 'disbursement'] as const;
export const AIRTEL_DEFAULT_KIND = 'payment';

/** Partner transaction ids: what the partner sent as `transaction.id`, used verbatim. */
const AIRTEL_REFERENCE_MAX = 64;

export function airtelReferenceProblem(reference: string): string | undefined {
  if (reference.length === 0) return 'Airtel references (transaction.id) must not be empty';
  if (reference.length > AIRTEL_REFERENCE_MAX) {
    return `Airtel references (transaction.id) are at most ${AIRTEL_REFERENCE_MAX} characters`;
  }
  if (reference.includes('/')) return 'Airtel references (transaction.id) must not contain "/"';
  // A path segment "." or ".." is resolved away by every URL parser (browsers, curl, the local server):
  // the transaction could never be read, checked or resolved at /v1/transactions/airtel/{account}/{reference}.
  if (reference === '.' || reference === '..') {
    return 'Airtel references (transaction.id) cannot be "." or ".." (no URL path names them)';
  }
  return undefined;
}

/** Ids and codes arrive as strings, but numeric-looking ones have been sent as JSON numbers; keep text. */
const text = z.pipe(z.union([z.string(), z.number()]), z.transform(String));

/**
 * An Airtel transaction status callback: `{transaction:{id,message,status_code,airtel_money_id}, hash?}`.
 * Loose: unknown members are kept (strict DTOs have dropped real callbacks). A neutral spelling of the
 * provider id, `wallet_money_id`, is accepted too; both spellings are read. `hash` is checked before
 * parsing (see hash.ts), not here.
 */
export const airtelCallbackSchema = z.looseObject({
  transaction: z.looseObject({
    id: z.pipe(text, z.string().check(z.minLength(1, 'transaction.id is required'))),
    message: z.nullish(text),
    status_code: z.pipe(
      text,
      z.string().check(z.trim(), z.minLength(1, 'transaction.status_code is required')),
    ),
    airtel_money_id: z.nullish(text),
    wallet_money_id: z.nullish(text),
    response_code: z.nullish(text),
    result_code: z.nullish(text),
  }),
  /** Status envelope, as on API responses; some senders copy it into callbacks. */
  status: z.catch(
    z.nullish(z.looseObject({ response_code: z.nullish(text), result_code: z.nullish(text) })),
    undefined,
  ),
});
export type AirtelCallback = z.infer<typeof airtelCallbackSchema>;

/**
 * The status API (reconciliation): the transaction enquiry of the Airtel Money Open API documentation. The credential values are
 * secrets (scrubbed from logs); in AWS they arrive from Secrets Manager merged into these settings.
 */
export const airtelApiSettingsSchema = z.strictObject({
  /** https://openapi.airtel.africa, https://openapiuat.airtel.africa, the simulator. */
  baseUrl: z.url({ protocol: /^https?$/ }),
  clientId: z.string().check(z.minLength(1)),
  clientSecret: z.string().check(z.minLength(1)),
  /** `X-Country` / `X-Currency` of the enquiry; default the account's `country` / `currency`. */
  country: z.optional(
    z.string().check(z.regex(/^[A-Z]{2}$/, 'country must be an ISO 3166 alpha-2 code like UG')),
  ),
  currency: z.optional(z.string().check(z.regex(/^[A-Z]{3}$/, 'currency must be an ISO 4217 code like UGX'))),
  timeoutMs: z._default(z.int().check(z.gte(100), z.lte(30_000)), 5000),
  /** Airtel publishes no rate; a polite default. */
  maxRequestsPerSecond: z._default(z.number().check(z.positive(), z.lte(1000)), 5),
  concurrency: z._default(z.int().check(z.gte(1), z.lte(64)), 4),
  /**
   * Enquiry path per kind (`{id}` is the partner transaction id), overriding the default: payment has the
   * Airtel Money Open API documentation's enquiry (`/standard/v1/payments/{id}`), refund Airtel's refund
   * enquiry (`/standard/v1/payments/refund/{id}`); disbursement has none, and is checked only when a path
   * is given here (docs/reconciliation.md#verify-before-trusting). `null`: the account's deployment has
   * no enquiry for that kind (its default answers nothing useful): never asked.
   */
  paths: z.optional(
    z.partialRecord(
      z.enum(AIRTEL_KINDS),
      z.nullable(
        z
          .string()
          .check(
            z.regex(
              /^\/[A-Za-z0-9_/.-]*\{id\}[A-Za-z0-9_/.-]*$/,
              'a path starting with / and containing {id}',
            ),
          ),
      ),
    ),
  ),
});
export type AirtelApiSettings = z.infer<typeof airtelApiSettingsSchema>;

export const airtelAccountSchema = z
  .object({
    /**
     * Confirm an unsigned success (no verified signature) with the status API before TransactionSucceeded
     * (docs/reconciliation.md). Off by default for this provider.
     */
    confirmSuccess: z.optional(z.boolean()),
    /** The HMAC key shown in the application settings ("private key"), used as UTF-8 bytes. A secret. */
    callbackKey: z.optional(z.string().check(z.minLength(1))),
    /**
     * While rotating (docs/deploy.md#secrets-and-rotation): the key before `callbackKey`, still accepted
     * until it is removed from the account's callback secret. A secret.
     */
    previousCallbackKey: z.optional(z.string().check(z.minLength(1))),
    /** enforce: reject a missing/wrong hash (401); log-only: accept and record; off: do not check. */
    hashMode: z._default(z.enum(AIRTEL_HASH_MODES), 'enforce'),
    /** Enabled recipes, tried in the canonical order; a match on any one is accepted. */
    hashRecipes: z._default(
      z
        .array(z.enum(AIRTEL_HASH_RECIPES))
        .check(z.minLength(1, 'enable at least one hash recipe (or set hashMode to "off")')),
      [...AIRTEL_HASH_RECIPES],
    ),
    /** X-Country of the application (ISO 3166 alpha-2), informational. */
    country: z.optional(
      z.string().check(z.regex(/^[A-Z]{2}$/, 'country must be an ISO 3166 alpha-2 code like UG')),
    ),
    /** X-Currency of the application (ISO 4217), informational: Airtel callbacks carry no amount. */
    currency: z.optional(
      z.string().check(z.regex(/^[A-Z]{3}$/, 'currency must be an ISO 4217 code like UGX')),
    ),
    /** Status API settings; without them Airtel transactions are not polled (only expired at the window's end). */
    api: z.optional(airtelApiSettingsSchema),
  })
  .check(
    z.superRefine((settings, ctx) => {
      if (settings.api && !(settings.api.country ?? settings.country)) {
        ctx.addIssue({
          code: 'custom',
          path: ['api', 'country'],
          message: "the enquiry needs X-Country: set api.country or the account's country",
        });
      }
      if (settings.api && !(settings.api.currency ?? settings.currency)) {
        ctx.addIssue({
          code: 'custom',
          path: ['api', 'currency'],
          message: "the enquiry needs X-Currency: set api.currency or the account's currency",
        });
      }
      if (settings.hashMode !== 'off' && !settings.callbackKey) {
        ctx.addIssue({
          code: 'custom',
          path: ['callbackKey'],
          message: `callbackKey is required when hashMode is "${settings.hashMode}" (set hashMode to "off" to accept unsigned callbacks)`,
        });
      }
    }),
  );
export type AirtelAccountSettings = z.infer<typeof airtelAccountSchema>;
