import * as z from 'zod';

/** Hash recipe ids. Shared verbatim with the provider simulator (simulator/airtel/hash.ts), which signs with them. */
export const AIRTEL_HASH_RECIPES = [
  'stringify-without-hash',
  'stringify-transaction',
  'raw-without-hash',
  'header-hex',
] as const;
export type AirtelHashRecipe = (typeof AIRTEL_HASH_RECIPES)[number];

export const AIRTEL_HASH_MODES = ['enforce', 'log-only', 'off'] as const;
export type AirtelHashMode = (typeof AIRTEL_HASH_MODES)[number];

/**
 * Airtel's callback URL is set once in the application settings, so the callback does not say which
 * operation it is about; `payment` (push payment) is the only one the seed documents callbacks for.
 */
export const AIRTEL_KINDS = ['payment', 'refund', 'disbursement'] as const;
export const AIRTEL_DEFAULT_KIND = 'payment';

/** Partner transaction ids: what the partner sent as `transaction.id`, used verbatim. */
export const AIRTEL_REFERENCE_MAX = 64;

export function airtelReferenceProblem(reference: string): string | undefined {
  if (reference.length === 0) return 'Airtel references (transaction.id) must not be empty';
  if (reference.length > AIRTEL_REFERENCE_MAX) {
    return `Airtel references (transaction.id) are at most ${AIRTEL_REFERENCE_MAX} characters`;
  }
  if (reference.includes('/')) return 'Airtel references (transaction.id) must not contain "/"';
  return undefined;
}

/** Ids and codes arrive as strings, but numeric-looking ones have been sent as JSON numbers; keep text. */
const text = z.union([z.string(), z.number()]).transform(String);

/**
 * An Airtel transaction status callback: `{transaction:{id,message,status_code,airtel_money_id}, hash?}`.
 * Loose: unknown members are kept (strict DTOs have dropped real callbacks). The seed spells the
 * provider id `wallet_money_id` (neutralised); both spellings are read. `hash` is checked before
 * parsing (see hash.ts), not here.
 */
export const airtelCallbackSchema = z.looseObject({
  transaction: z.looseObject({
    id: text.pipe(z.string().min(1, 'transaction.id is required')),
    message: text.optional().nullable(),
    status_code: text.pipe(z.string().trim().min(1, 'transaction.status_code is required')),
    airtel_money_id: text.optional().nullable(),
    wallet_money_id: text.optional().nullable(),
    response_code: text.optional().nullable(),
    result_code: text.optional().nullable(),
  }),
  /** Status envelope, as on API responses; some senders copy it into callbacks. */
  status: z
    .looseObject({ response_code: text.optional().nullable(), result_code: text.optional().nullable() })
    .optional()
    .nullable()
    .catch(undefined),
});
export type AirtelCallback = z.infer<typeof airtelCallbackSchema>;

/**
 * The status API (reconciliation): the transaction enquiry of seed 001 Part A. The credential values are
 * secrets (scrubbed from logs); in AWS they arrive from Secrets Manager merged into these settings.
 */
export const airtelApiSettingsSchema = z
  .object({
    /** https://openapi.airtel.africa, https://openapiuat.airtel.africa, the simulator. */
    baseUrl: z.url({ protocol: /^https?$/ }),
    clientId: z.string().min(1),
    clientSecret: z.string().min(1),
    /** `X-Country` / `X-Currency` of the enquiry; default the account's `country` / `currency`. */
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, 'country must be an ISO 3166 alpha-2 code like UG')
      .optional(),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'currency must be an ISO 4217 code like UGX')
      .optional(),
    timeoutMs: z.number().int().min(100).max(30_000).default(5000),
    /** Airtel publishes no rate; a polite default. */
    maxRequestsPerSecond: z.number().positive().max(1000).default(5),
    concurrency: z.number().int().min(1).max(64).default(4),
    /**
     * Enquiry path per kind (`{id}` is the partner transaction id), overriding the default: seed 001 has
     * the payment enquiry only (`/standard/v1/payments/{id}`), so refund and disbursement are checked
     * only when a path is given here.
     */
    paths: z
      .partialRecord(
        z.enum(AIRTEL_KINDS),
        z
          .string()
          .regex(/^\/[A-Za-z0-9_/.-]*\{id\}[A-Za-z0-9_/.-]*$/, 'a path starting with / and containing {id}'),
      )
      .optional(),
  })
  .strict();
export type AirtelApiSettings = z.infer<typeof airtelApiSettingsSchema>;

export const airtelAccountSchema = z
  .object({
    /**
     * Confirm an unsigned success (no verified signature) with the status API before TransactionSucceeded
     * (docs/reconciliation.md). Off by default for this provider.
     */
    confirmSuccess: z.boolean().optional(),
    /** The HMAC key shown in the application settings ("private key"), used as UTF-8 bytes. A secret. */
    callbackKey: z.string().min(1).optional(),
    /** enforce: reject a missing/wrong hash (401); log-only: accept and record; off: do not check. */
    hashMode: z.enum(AIRTEL_HASH_MODES).default('enforce'),
    /** Enabled recipes, tried in the canonical order; a match on any one is accepted. */
    hashRecipes: z
      .array(z.enum(AIRTEL_HASH_RECIPES))
      .min(1, 'enable at least one hash recipe (or set hashMode to "off")')
      .default([...AIRTEL_HASH_RECIPES]),
    /** X-Country of the application (ISO 3166 alpha-2), informational. */
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, 'country must be an ISO 3166 alpha-2 code like UG')
      .optional(),
    /** X-Currency of the application (ISO 4217), informational: Airtel callbacks carry no amount. */
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'currency must be an ISO 4217 code like UGX')
      .optional(),
    /** Status API settings; without them Airtel transactions are not polled (only expired at the window's end). */
    api: airtelApiSettingsSchema.optional(),
  })
  .superRefine((settings, ctx) => {
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
  });
export type AirtelAccountSettings = z.infer<typeof airtelAccountSchema>;
