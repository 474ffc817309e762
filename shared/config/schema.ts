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
    reconciliation: z
      .object({ windowSeconds: positiveInt.default(24 * 3600) })
      .strict()
      .default({ windowSeconds: 24 * 3600 }),
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
