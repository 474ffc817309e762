import * as z from 'zod';

/** MoMo sends numbers as strings, but integrations have seen numbers too; accept both, keep text. */
const text = z.union([z.string(), z.number()]).transform(String);

export const momoPartySchema = z.looseObject({
  partyIdType: z.string().optional(),
  partyId: text.optional(),
});

/** `reason` is a bare code string on some APIs and an ErrorReason object on others. */
export const momoReasonSchema = z.union([
  z.string(),
  z.looseObject({ code: z.string().optional(), message: z.string().optional() }),
]);

/**
 * A MoMo callback body: the same shape as the status GET of its kind. Unknown members are kept
 * (loose) because strict DTOs have silently dropped real callbacks; only `status` is required.
 */
export const momoCallbackSchema = z.looseObject({
  referenceId: z.string().optional(),
  financialTransactionId: text.optional().nullable(),
  externalId: text.optional().nullable(),
  amount: text.optional().nullable(),
  currency: z.string().optional().nullable(),
  payerCurrency: z.string().optional().nullable(),
  money: z.looseObject({ amount: text.optional(), currency: z.string().optional() }).optional().nullable(),
  payer: momoPartySchema.optional().nullable(),
  payee: momoPartySchema.optional().nullable(),
  intendedPayer: momoPartySchema.optional().nullable(),
  status: z.string().min(1, 'status is required'),
  reason: momoReasonSchema.optional().nullable(),
  errorReason: momoReasonSchema.optional().nullable(),
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

export const momoAccountSchema = z.object({
  /** X-Target-Environment of the API user ("sandbox" or the country value). */
  targetEnvironment: z.string().min(1).default('sandbox'),
  /** Expected currency; a callback in another currency is a conflict, never a success. */
  currency: z.string().length(3).optional(),
});
export type MomoAccountSettings = z.infer<typeof momoAccountSchema>;
