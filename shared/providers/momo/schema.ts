import * as z from '../../util/zod';

/** MoMo sends numbers as strings, but integrations have seen numbers too; accept both, keep text. */
const text = z.pipe(z.union([z.string(), z.number()]), z.transform(String));

const momoPartySchema = z.looseObject({
  partyIdType: z.optional(z.string()),
  partyId: z.optional(text),
});

/**
 * `reason` is a bare code string on some APIs and an ErrorReason object on others. Its members may be
 * null (a serializer writing every field): a failure callback is sent once, and refusing it over a null
 * message would lose it.
 */
const momoReasonSchema = z.union([
  z.string(),
  z.looseObject({ code: z.nullish(z.string()), message: z.nullish(z.string()) }),
]);

/**
 * A MoMo callback body: the same shape as the status GET of its kind. Unknown members are kept
 * (loose) because strict DTOs have silently dropped real callbacks; only `status` is required.
 */
export const momoCallbackSchema = z.looseObject({
  referenceId: z.optional(z.string()),
  financialTransactionId: z.nullish(text),
  externalId: z.nullish(text),
  amount: z.nullish(text),
  currency: z.nullish(z.string()),
  payerCurrency: z.nullish(z.string()),
  money: z.nullish(z.looseObject({ amount: z.optional(text), currency: z.optional(z.string()) })),
  payer: z.nullish(momoPartySchema),
  payee: z.nullish(momoPartySchema),
  intendedPayer: z.nullish(momoPartySchema),
  status: z.string().check(z.minLength(1, 'status is required')),
  reason: z.nullish(momoReasonSchema),
  errorReason: z.nullish(momoReasonSchema),
});
export type MomoCallback = z.infer<typeof momoCallbackSchema>;

export const MOMO_KINDS = [
  'requesttopay',
  'requesttowithdraw',
  'invoice',
  'payment',
  'preapproval',
  'transfer',
  'deposit',
  'refund',
  'cashtransfer',
] as const;
export type MomoKind = (typeof MOMO_KINDS)[number];

/**
 * The status API (reconciliation): where and as whom the relay asks MoMo about a transaction. In AWS the
 * credential values arrive from Secrets Manager merged into these settings; every one of them is a
 * secret (scrubbed from logs, see `secrets`).
 */
export const momoApiSettingsSchema = z
  .strictObject({
    /** Gateway base URL: https://proxy.momoapi.mtn.com, https://sandbox.momodeveloper.mtn.com, the simulator. */
    baseUrl: z.url({ protocol: /^https?$/ }),
    /** API user (UUID) and API key: the Basic credentials of the token calls. */
    apiUser: z.string().check(z.minLength(1)),
    apiKey: z.string().check(z.minLength(1)),
    /** `Ocp-Apim-Subscription-Key` of the Collection product (collection kinds). */
    collectionSubscriptionKey: z.optional(z.string().check(z.minLength(1))),
    /** `Ocp-Apim-Subscription-Key` of the Disbursement product (transfer, deposit, refund, cash transfer). */
    disbursementSubscriptionKey: z.optional(z.string().check(z.minLength(1))),
    /**
     * `Ocp-Apim-Subscription-Key` of the Remittance product: used for paths under `/remittance/`, e.g.
     * `paths: {"transfer": "/remittance/v1_0/transfer/{ref}"}` on an account that sends remittances.
     */
    remittanceSubscriptionKey: z.optional(z.string().check(z.minLength(1))),
    /**
     * The product's secondary key (MoMo Open API docs: each product has "a primary and a secondary key"; "the
     * secondary key is tried when the primary fails"). When MoMo refuses the primary with a subscription
     * key error (401/403 "Access denied due to invalid subscription key"), the token request and the status
     * GET are made again with the secondary, which is then used until it is refused in turn. Optional.
     */
    collectionSecondarySubscriptionKey: z.optional(z.string().check(z.minLength(1))),
    disbursementSecondarySubscriptionKey: z.optional(z.string().check(z.minLength(1))),
    remittanceSecondarySubscriptionKey: z.optional(z.string().check(z.minLength(1))),
    /** Per attempt. */
    timeoutMs: z._default(z.int().check(z.gte(100), z.lte(30_000)), 5000),
    /** MTN caps status calls at 10 requests/s. */
    maxRequestsPerSecond: z._default(z.number().check(z.positive(), z.lte(1000)), 10),
    /** Status calls in flight at once for this account. */
    concurrency: z._default(z.int().check(z.gte(1), z.lte(64)), 4),
    /**
     * Status path per kind, overriding the built-in table (`{ref}` is replaced by the reference), e.g.
     * `{"transfer": "/remittance/v1_0/transfer/{ref}"}`. The path's first segment picks the product (token
     * and subscription key). Refund defaults to MTN's Disbursement path; cash transfer has no default: until
     * it is set here, a cash transfer cannot be checked (docs/reconciliation.md#verify-before-trusting).
     * `null`: the account's deployment has no status GET for that kind (its default answers nothing useful):
     * never asked.
     */
    paths: z.optional(
      z.partialRecord(
        z.enum(MOMO_KINDS),
        z.nullable(
          z
            .string()
            .check(
              z.regex(
                /^\/[A-Za-z0-9_/.-]*\{ref\}[A-Za-z0-9_/.-]*$/,
                'a path starting with / and containing {ref}',
              ),
            ),
        ),
      ),
    ),
  })
  .check(
    z.refine(
      (api) =>
        Boolean(
          api.collectionSubscriptionKey || api.disbursementSubscriptionKey || api.remittanceSubscriptionKey,
        ),
      {
        message:
          'give at least one of collectionSubscriptionKey, disbursementSubscriptionKey, remittanceSubscriptionKey',
        path: ['collectionSubscriptionKey'],
      },
    ),
    z.superRefine((api, ctx) => {
      for (const product of ['collection', 'disbursement', 'remittance'] as const) {
        if (api[`${product}SecondarySubscriptionKey`] && !api[`${product}SubscriptionKey`]) {
          ctx.addIssue({
            code: 'custom',
            path: [`${product}SecondarySubscriptionKey`],
            message: `${product}SecondarySubscriptionKey is the fallback of ${product}SubscriptionKey: give the primary too`,
          });
        }
      }
    }),
  );
export type MomoApiSettings = z.infer<typeof momoApiSettingsSchema>;

/** The sandbox's target environment (MoMo Open API docs); any other value is a production (country) environment. */
export const MOMO_SANDBOX_ENVIRONMENT = 'sandbox';

export const momoAccountSchema = z.object({
  /**
   * X-Target-Environment of the API user ("sandbox" or the country value). Anything but "sandbox" marks
   * the account as production: its callback URLs must be https (MoMo Open API docs, Callback).
   */
  targetEnvironment: z._default(z.string().check(z.minLength(1)), MOMO_SANDBOX_ENVIRONMENT),
  /**
   * The API user's `providerCallbackHost` (MoMo Open API docs: the host name, not an IP address, that callback URLs
   * must use; MoMo refuses any other with 500 INVALID_CALLBACK_URL_HOST). When set, registration refuses to
   * hand out a callback URL on another host (400 INVALID_CALLBACK_URL) instead of letting MoMo refuse it.
   */
  providerCallbackHost: z.optional(
    z
      .string()
      .check(
        z.regex(
          /^(?=.{1,253}$)(?!\d+(\.\d+){3}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/,
          "providerCallbackHost is the API user's host name only (no scheme, port, path or IP), e.g. relay.example.com",
        ),
      ),
  ),
  /** Expected currency; a callback in another currency is a conflict, never a success. */
  currency: z.optional(z.string().check(z.length(3))),
  /** Status API settings; without them MoMo transactions are not polled (only expired at the window's end). */
  api: z.optional(momoApiSettingsSchema),
  /**
   * A SUCCESSFUL callback (unsigned, always) is confirmed with the status GET before TransactionSucceeded
   * (docs/reconciliation.md). On by default; switch off only where the path secret is trusted alone.
   */
  confirmSuccess: z._default(z.boolean(), true),
});
export type MomoAccountSettings = z.infer<typeof momoAccountSchema>;
