import { constants, createPublicKey, publicEncrypt, X509Certificate } from 'node:crypto';
import * as z from '../../util/zod';
import { isValidCidr } from '../../util/ip-allowlist';

/**
 * Daraja bodies as they really arrive (Daraja API docs, provider notes): codes as numbers or strings,
 * items without `Value`, `ReferenceItem`/`ResultParameter` as an object or an array, repeated keys,
 * unknown members. Everything is loose; only what correlation needs is required.
 */

/** Numbers and strings both arrive for the same field; keep the text. */
const text = z.pipe(z.union([z.string(), z.number()]), z.transform(String));
const requiredText = z.pipe(
  z.union([z.string().check(z.trim(), z.minLength(1)), z.number()]),
  z.transform(String),
);

/**
 * An optional list member (`Item`, `ResultParameter`, `ReferenceItem`): absent, null (as its parent may be:
 * a serializer writing every member) or one or many; absent afterwards when it was null. Refusing a
 * result over a null list would lose a callback Daraja does not send again.
 */
function optionalOneOrMany<T extends z.ZodMiniType>(item: T) {
  return z.optional(
    z.pipe(
      z.union([z.null(), z.array(item), item]),
      z.transform((v) => (v === null ? undefined : Array.isArray(v) ? v : [v]) as z.output<T>[] | undefined),
    ),
  );
}

/** `{Name, Value}` (STK CallbackMetadata.Item); Balance comes without Value. */
const nameValueSchema = z.looseObject({ Name: z.string(), Value: z.optional(z.unknown()) });
/** `{Key, Value}` (ResultParameter, ReferenceItem); TransactionReason and Occasion come without Value. */
const keyValueSchema = z.looseObject({ Key: z.string(), Value: z.optional(z.unknown()) });

export const stkCallbackSchema = z.looseObject({
  Body: z.looseObject({
    stkCallback: z.looseObject({
      MerchantRequestID: z.nullish(text),
      CheckoutRequestID: requiredText,
      ResultCode: requiredText,
      ResultDesc: z.nullish(z.string()),
      CallbackMetadata: z.nullish(z.looseObject({ Item: optionalOneOrMany(nameValueSchema) })),
    }),
  }),
});
export type StkCallback = z.infer<typeof stkCallbackSchema>;

const resultCore = {
  ResultType: z.nullish(text),
  ResultDesc: z.nullish(z.string()),
  OriginatorConversationID: z.nullish(text),
  ConversationID: z.nullish(text),
  TransactionID: z.nullish(text),
  ResultParameters: z.nullish(z.looseObject({ ResultParameter: optionalOneOrMany(keyValueSchema) })),
  ReferenceData: z.nullish(z.looseObject({ ReferenceItem: optionalOneOrMany(keyValueSchema) })),
};

/** B2C and transaction-status results posted to ResultURL: `{Result:{...}}`. */
export const resultSchema = z.looseObject({
  Result: z.looseObject({ ...resultCore, ResultCode: requiredText }).check(
    z.refine((r) => Boolean(r.OriginatorConversationID || r.ConversationID), {
      message: 'Result must carry OriginatorConversationID or ConversationID',
    }),
  ),
});
export type DarajaResult = z.infer<typeof resultSchema>['Result'];

/** Any id naming the request (one check for both timeout shapes): a notice may carry only the TransactionID. */
type RequestIds = {
  OriginatorConversationID?: string | null;
  ConversationID?: string | null;
  TransactionID?: string | null;
};
const namesTheRequest = z.refine<RequestIds>(
  (r) => Boolean(r.OriginatorConversationID || r.ConversationID || r.TransactionID),
  { message: 'must carry OriginatorConversationID, ConversationID or TransactionID' },
);

/**
 * Queue-timeout notices. Their body is undocumented (provider notes "(!)"), and two shapes are seen:
 * `{Result:{...}}` like a result, and an echo of the original request with a top-level
 * OriginatorConversationID (and the SecurityCredential, which must be redacted).
 */
export const timeoutResultShapeSchema = z.looseObject({
  Result: z.looseObject({ ...resultCore, ResultCode: z.nullish(text) }).check(namesTheRequest),
});
export const timeoutEchoShapeSchema = z
  .looseObject({
    OriginatorConversationID: z.nullish(text),
    ConversationID: z.nullish(text),
    TransactionID: z.nullish(text),
    CommandID: z.nullish(z.string()),
    Amount: z.nullish(text),
    PartyA: z.nullish(text),
    PartyB: z.nullish(text),
  })
  .check(namesTheRequest);
export type TimeoutEcho = z.infer<typeof timeoutEchoShapeSchema>;
export type TimeoutResult = z.infer<typeof timeoutResultShapeSchema>['Result'];

/** C2B validation and confirmation share one body (strings; OrgAccountBalance blank in validation). */
export const c2bSchema = z.looseObject({
  TransactionType: z.nullish(text),
  TransID: requiredText,
  TransTime: z.nullish(text),
  TransAmount: requiredText,
  BusinessShortCode: requiredText,
  BillRefNumber: z.nullish(text),
  InvoiceNumber: z.nullish(text),
  OrgAccountBalance: z.nullish(text),
  ThirdPartyTransID: z.nullish(text),
  MSISDN: z.nullish(text),
  FirstName: z.nullish(z.string()),
  MiddleName: z.nullish(z.string()),
  LastName: z.nullish(z.string()),
});
export type C2BPayload = z.infer<typeof c2bSchema>;

export const C2B_REJECT_CODES = [
  'C2B00011',
  'C2B00012',
  'C2B00013',
  'C2B00014',
  'C2B00015',
  'C2B00016',
] as const;
export type C2BRejectCode = (typeof C2B_REJECT_CODES)[number];

/**
 * The Safaricom addresses integrators cite as callback sources (provider notes, "(!)" uncertain): the 12
 * commonly cited plus the 3 others some integrations list. All 15 are included: each is inside
 * Safaricom's 196.201.212.0/22, and leaving a real source out would refuse real callbacks in enforce mode.
 */
export const DARAJA_DEFAULT_SOURCE_IPS = [
  '196.201.214.200/32',
  '196.201.214.206/32',
  '196.201.214.207/32',
  '196.201.214.208/32',
  '196.201.213.114/32',
  '196.201.213.44/32',
  '196.201.212.127/32',
  '196.201.212.138/32',
  '196.201.212.129/32',
  '196.201.212.136/32',
  '196.201.212.74/32',
  '196.201.212.69/32',
  // Cited by other integrations:
  '196.201.212.128/32',
  '196.201.212.132/32',
  '196.201.214.212/32',
] as const;

const cidrSchema = z
  .string()
  .check(z.refine(isValidCidr, { message: 'must be an IPv4/IPv6 address or CIDR (e.g. 196.201.214.0/24)' }));

const regexSchema = z.string().check(
  z.refine(
    (pattern) => {
      try {
        new RegExp(pattern);
        return true;
      } catch {
        return false;
      }
    },
    { message: 'must be a valid regular expression' },
  ),
);

/** Hard cap below Daraja's ~8 s validation timeout, leaving room for network and the writes. */
export const C2B_DEADLINE_CAP_MS = 7500;

export const darajaC2bSettingsSchema = z
  .strictObject({
    /** Answer within this many milliseconds, whatever the decision sources do. */
    deadlineMs: z._default(z.int().check(z.gte(50), z.lte(C2B_DEADLINE_CAP_MS)), 5000),
    /** What to answer when the decision is not ready in time or a decision source fails. */
    defaultDecision: z._default(z.enum(['accept', 'reject']), 'accept'),
    defaultRejectCode: z._default(z.enum(C2B_REJECT_CODES), 'C2B00016'),
    /** BillRefNumber must match this regular expression (tested against the whole trimmed value). */
    billRefPattern: z.optional(regexSchema),
    minAmount: z.optional(z.number().check(z.positive())),
    maxAmount: z.optional(z.number().check(z.positive())),
    /** The MSISDN's visible prefix (it arrives masked, e.g. 25470****149) must start with one of these. */
    msisdnPrefixes: z.optional(
      z.array(z.string().check(z.regex(/^\d{1,12}$/, 'prefixes are digits'))).check(z.minLength(1)),
    ),
    /** Reject (C2B00014, KYC) when the payer's first and last names are both empty. */
    requireCustomerName: z._default(z.boolean(), false),
    /** Look BillRefNumber up among the account's known account numbers in DynamoDB. */
    knownAccounts: z._default(z.boolean(), false),
    /** The partner's own decision endpoint, asked last. */
    partner: z.optional(
      z.strictObject({
        url: z.url(),
        /** Sent as `Authorization: Bearer <token>`; never logged. */
        bearerToken: z.optional(z.string().check(z.minLength(16))),
      }),
    ),
  })
  .check(
    z.refine((c) => c.minAmount === undefined || c.maxAmount === undefined || c.minAmount <= c.maxAmount, {
      message: 'minAmount must not exceed maxAmount',
      path: ['minAmount'],
    }),
  );
export type DarajaC2bSettings = z.infer<typeof darajaC2bSettingsSchema>;

const darajaSourceIpSettingsSchema = z.strictObject({
  mode: z._default(z.enum(['enforce', 'log-only', 'off']), 'enforce'),
  allow: z._default(z.array(cidrSchema).check(z.minLength(1)), [...DARAJA_DEFAULT_SOURCE_IPS]),
});

/**
 * The status API (reconciliation): STK push query for `stk`, transaction status query for the rest.
 * Credential values are secrets (scrubbed from logs); in AWS they arrive from Secrets Manager merged in.
 */
export const darajaApiSettingsSchema = z.pipe(
  z.strictObject({
    /** https://api.safaricom.co.ke, https://sandbox.safaricom.co.ke, the simulator. */
    baseUrl: z.url({ protocol: /^https?$/ }),
    consumerKey: z.string().check(z.minLength(1)),
    consumerSecret: z.string().check(z.minLength(1)),
    /** `/mpesa` on the real platform, `/wallet` on the simulator's neutral alias (the token path has none). */
    pathPrefix: z._default(z.enum(['/mpesa', '/wallet']), '/mpesa'),
    /** STK query: the Lipa na M-Pesa passkey of `stkShortCode`. Without it `stk` is not checked. */
    passkey: z.optional(z.string().check(z.minLength(1))),
    /** STK query BusinessShortCode; default the account's `shortCode`. */
    stkShortCode: z.optional(z.string().check(z.regex(/^\d{5,9}$/, 'short codes are 5 to 9 digits'))),
    /** Transaction status query: the API operator and its encrypted password. Without them b2c/c2b are not checked. */
    initiator: z.optional(z.string().check(z.minLength(1))),
    securityCredential: z.optional(z.string().check(z.minLength(1))),
    /**
     * Instead of `securityCredential`: the initiator's password in clear (a secret) and Daraja's public key
     * certificate (PEM, sandbox or production); the relay encrypts it once, when the config loads. The
     * password must keep to the Daraja API documentation's characters (initiatorPasswordProblem): checked even beside a
     * `securityCredential`, so a password Daraja will refuse fails the config, naming this key.
     */
    initiatorPassword: z.optional(
      z.string().check(
        z.minLength(1),
        z.superRefine((password, ctx) => {
          const problem = initiatorPasswordProblem(password);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
      ),
    ),
    securityCertificate: z.optional(
      z
        .string()
        .check(
          z.refine(
            (pem) => /-----BEGIN (CERTIFICATE|PUBLIC KEY)-----/.test(pem),
            "Daraja's certificate as PEM (-----BEGIN CERTIFICATE-----), or its public key (-----BEGIN PUBLIC KEY-----)",
          ),
        ),
    ),
    /** Transaction status query PartyA; default the account's `shortCode`. */
    partyA: z.optional(
      z.string().check(z.regex(/^(\d{5,9}|254\d{9})$/, 'a short code (5 to 9 digits) or a 12-digit MSISDN')),
    ),
    /** 4 = organisation short code (Daraja API docs), 1 = MSISDN, 2 = till number. */
    identifierType: z._default(z.enum(['1', '2', '4']), '4'),
    timeoutMs: z._default(z.int().check(z.gte(100), z.lte(30_000)), 5000),
    /** All calls of the account. */
    maxRequestsPerSecond: z._default(z.number().check(z.positive(), z.lte(1000)), 5),
    /** STK queries only: the sandbox allows about 5 a minute. */
    stkQueriesPerMinute: z._default(z.number().check(z.positive(), z.lte(60_000)), 5),
    concurrency: z._default(z.int().check(z.gte(1), z.lte(64)), 2),
    /**
     * Daraja Pull Transactions API (issue 29; docs/pull-and-balances.md): set to pull the short code's C2B
     * payments on a schedule. The app needs Safaricom's Pull API product; `nominatedNumber` is the
     * organisation's registered phone number (2547…/2541…), masked wherever it is shown.
     */
    pull: z.optional(
      z.strictObject({
        /** Default the account's `shortCode`. */
        shortCode: z.optional(z.string().check(z.regex(/^\d{5,9}$/, 'short codes are 5 to 9 digits'))),
        nominatedNumber: z.string().check(z.regex(/^254\d{9}$/, 'a 12-digit MSISDN starting 254')),
      }),
    ),
  }),
  z.transform((api, ctx) => {
    if (api.securityCredential || !api.initiatorPassword) return api;
    if (!api.securityCertificate) {
      ctx.issues.push({
        code: 'custom',
        input: api,
        path: ['securityCertificate'],
        message:
          "initiatorPassword needs Daraja's public key certificate (securityCertificate) to be encrypted, or give securityCredential",
      });
      return z.NEVER;
    }
    try {
      return {
        ...api,
        securityCredential: encryptInitiatorPassword(api.initiatorPassword, api.securityCertificate),
      };
    } catch {
      ctx.issues.push({
        code: 'custom',
        input: api,
        path: ['securityCertificate'],
        message: 'is not a usable RSA certificate',
      });
      return z.NEVER;
    }
  }),
);
export type DarajaApiSettings = z.infer<typeof darajaApiSettingsSchema>;

/**
 * Daraja API docs, initiator password rule: "special characters limited to `#`, `&`, `%`, `$`; parentheses are
 * rejected; `@` is an ordinary character". So letters, digits, `@` and those four; anything else (spaces,
 * parentheses, `!`, `*`, non-ASCII…) is refused. The message never quotes the password.
 */
const INITIATOR_PASSWORD_ALLOWED = /^[A-Za-z0-9@#&%$]$/;

function initiatorPasswordProblem(password: string): string | undefined {
  const refused = [...password].filter((c) => !INITIATOR_PASSWORD_ALLOWED.test(c));
  if (!refused.length) return undefined;
  const parentheses = refused.some((c) => c === '(' || c === ')') ? ' (parentheses among them)' : '';
  return `${refused.length} character(s) Daraja refuses in an initiator password${parentheses}: letters, digits and @ # & % $ only (Daraja API docs)`;
}

/** SecurityCredential: the password encrypted with the certificate's RSA key (PKCS#1 v1.5), base64. */
function encryptInitiatorPassword(password: string, certificatePem: string): string {
  const key = certificatePem.includes('-----BEGIN CERTIFICATE-----')
    ? new X509Certificate(certificatePem).publicKey
    : createPublicKey(certificatePem);
  return publicEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(password)).toString(
    'base64',
  );
}

export const darajaAccountSchema = z.object({
  /**
   * Confirm an unsigned success (no verified signature) with the status API before TransactionSucceeded
   * (docs/reconciliation.md). Off by default for this provider.
   */
  confirmSuccess: z.optional(z.boolean()),
  /** The pay-bill/till short code; C2B requests for another BusinessShortCode are rejected (C2B00015). */
  shortCode: z.optional(z.string().check(z.regex(/^\d{5,9}$/, 'short codes are 5 to 9 digits'))),
  /** Daraja bodies carry no currency; reports use this one. */
  currency: z._default(
    z.string().check(z.regex(/^[A-Z]{3}$/, 'currency must be an ISO 4217 code like KES')),
    'KES',
  ),
  sourceIp: z.prefault(darajaSourceIpSettingsSchema, {}),
  c2b: z.prefault(darajaC2bSettingsSchema, {}),
  /** Status API settings; without them Daraja transactions are not polled (only expired at the window's end). */
  api: z.optional(darajaApiSettingsSchema),
});
export type DarajaAccountSettings = z.infer<typeof darajaAccountSchema>;

/** Route names as stored on receipts, and their paths relative to the account. */
export const DARAJA_ROUTES = {
  stk: 'stk',
  'c2b-validation': 'c2b/validation',
  'c2b-confirmation': 'c2b/confirmation',
  'b2c-result': 'b2c/result',
  'b2c-timeout': 'b2c/timeout',
  'b2b-result': 'b2b/result',
  'b2b-timeout': 'b2b/timeout',
  'status-result': 'status/result',
  'status-timeout': 'status/timeout',
  'balance-result': 'balance/result',
  'balance-timeout': 'balance/timeout',
  'reversal-result': 'reversal/result',
  'reversal-timeout': 'reversal/timeout',
} as const;
export type DarajaRouteName = keyof typeof DARAJA_ROUTES;

export const DARAJA_KINDS = ['stk', 'b2c', 'b2b', 'c2b'] as const;
