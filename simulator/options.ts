/**
 * Options of `createSimulator` and their defaults. Defaults are fixed values (not random) so a demo
 * relay config and end-to-end tests can name the same credentials without reading them from the simulator.
 */
import type { AirtelHashRecipe } from './airtel/hash';
import type { SimClock } from './core/clock';
import type { GlobalFaultsInput } from './core/faults';
import type { LogSink } from './core/log';

interface MomoApiUserSeed {
  /** UUID v4: the API user id. */
  id: string;
  apiKey: string;
  providerCallbackHost: string;
}

interface MomoOptions {
  /** First MSISDN of the sandbox outcome tables (base + index → outcome). */
  sandboxMsisdnBase?: string;
  collectionSubscriptionKeys?: { primary: string; secondary: string };
  disbursementSubscriptionKeys?: { primary: string; secondary: string };
  remittanceSubscriptionKeys?: { primary: string; secondary: string };
  /**
   * MoMo Open API docs: "Disbursement calls come from allow-listed public IP addresses; others get 403 FORBIDDEN IP".
   * IPv4 addresses or CIDRs (`10.0.0.0/8`); empty (default) allows every caller. The caller's address is
   * the connection's remote address (`::ffff:` IPv4-mapped form unwrapped); an `X-Sim-Source-Ip` request
   * header overrides it.
   */
  disbursementAllowList?: string[];
  /** The same for the remittance product (MTN's docs name only disbursement); default empty = allow all. */
  remittanceAllowList?: string[];
  /** `mtn` (default): MTN's underscore codes. `seed`: the spellings of the MoMo Open API documentation (`RESOURCE NOT FOUND`, …). */
  errorSpelling?: 'mtn' | 'seed';
  /** Value `X-Target-Environment` must carry. */
  targetEnvironment?: string;
  currency?: string;
  /** API users that exist from the start (the sandbox normally needs the provisioning calls first). */
  apiUsers?: MomoApiUserSeed[];
  tokenTtlSeconds?: number;
  /** Payer approval window, in provider time (scaled by `timeScale`). */
  approvalWindowMs?: number;
  /** Source IP sent as `X-Forwarded-For` on MoMo callbacks; none by default. */
  callbackSourceIp?: string;
}

export interface AirtelAppSeed {
  clientId: string;
  clientSecret: string;
  /** Where transaction status callbacks go (set in the app settings on the real portal). */
  callbackUrl?: string;
  /** Callback authentication: when on, callbacks carry a hash made with `callbackKey`. */
  callbackAuth?: boolean;
  callbackKey?: string;
  hashRecipe?: AirtelHashRecipe;
  /** Message signing (`x-signature`/`x-key`) required on payment and refund. */
  messageSigning?: boolean;
}

interface AirtelOptions {
  apps?: AirtelAppSeed[];
  /** `expires_in` of tokens, seconds (the real service says "180"). */
  tokenTtlSeconds?: number;
  /** Time an ambiguous (TA) transaction takes to settle to TS, in provider time (scaled). */
  ambiguousResolveMs?: number;
  callbackSourceIp?: string;
  /** PEM private key for the encryption-keys operation; default: one pair generated per process. */
  rsaPrivateKeyPem?: string;
}

interface DarajaOptions {
  consumerKey?: string;
  consumerSecret?: string;
  /** STK short codes and their passkeys. */
  passkeys?: Record<string, string>;
  tokenTtlSeconds?: number;
  /** The validation call's deadline (the platform's is 8 seconds). */
  c2bValidationTimeoutMs?: number;
  /**
   * External validation on every short code (Daraja API docs: "External validation must be activated for the short
   * code by its owner; by default it is off"). Default false; turn it on per short code with
   * `PUT /_sim/daraja/c2b/{shortCode} {"externalValidation": true}`, as `npm start -- --simulator` does.
   */
  c2bExternalValidation?: boolean;
  /** Body of a B2C / status queue-timeout notice: echo of the request (default) or a `{Result:{…}}`. */
  queueTimeoutShape?: 'echo' | 'result';
  /** If set, a queue timeout is followed by the real result this many ms later (provider time, scaled). */
  queueTimeoutLateResultMs?: number;
  /** Delay of the queue timeout notice, provider time (scaled). */
  queueTimeoutAfterMs?: number;
  /** `X-Forwarded-For` on every Daraja request the simulator sends; in Safaricom's published list. */
  callbackSourceIp?: string;
  /** Quota: at most this many Daraja calls in any one second, else 500.003.03. Off by default. */
  quotaPerSecond?: number;
  /** Spike arrest: calls closer together than 1000/N ms are refused with 500.003.02. Off by default. */
  spikeArrestPerSecond?: number;
  /** HTTP status of quota and spike-arrest refusals (Daraja's docs give none). Default 429. */
  throttleHttpStatus?: number;
}

/** Authentication the badge API requires; the plugin's API documents none. */
interface BadgeAuthOptions {
  type: 'none' | 'basic' | 'bearer';
  /** Basic: default `sim-badge-user`. */
  username?: string;
  /** Basic: default `sim-badge-password`. */
  password?: string;
  /** Bearer: default `sim-badge-token`. */
  token?: string;
}

interface BadgeOptions {
  /** The platform's REST root segment(s) before `cpbw/v1`. Default `wp-json`. */
  restPrefix?: string;
  /** Default `{type: 'none'}`. */
  auth?: BadgeAuthOptions;
  /** Badge-scope faults from the start, e.g. `status-5xx-times=2` or `garbage-body`. */
  faults?: string;
  /** The site's UTC offset, in which dates are written. Default `+03:00`. */
  utcOffset?: string;
  /** Seed the three demo badges at start and on reset. Default true. */
  demoBadges?: boolean;
  /** `created_by` of badges created without Basic credentials. Default `admin`. */
  createdBy?: string;
}

export interface SimulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Multiplier for provider business time (0.01 turns MoMo's 5-minute window into 3 s). Default 1. */
  timeScale?: number;
  /** Real ms until a payer "answers" a prompt (not scaled). Default 300. */
  approvalDelayMs?: number;
  /**
   * The clock behind the simulator's timers and the times MoMo and Daraja date their operations and money
   * movements by; default the real one. Tests pass a `ManualClock` (core/clock.ts) to decide when a payer
   * answers, a window closes or the second a Daraja balance names ends.
   */
  clock?: SimClock;
  /** Timeout of each callback request. Default 10 000 ms. */
  callbackTimeoutMs?: number;
  /** Address used by the `foreign-ip` fault. */
  foreignSourceIp?: string;
  /** Faults in force from the start, by scope. */
  faults?: GlobalFaultsInput;
  /** Where log lines go; default `console.log`. Pass `() => {}` to silence. */
  log?: LogSink;
  momo?: MomoOptions;
  airtel?: AirtelOptions;
  daraja?: DarajaOptions;
  /** The badge API of a shop plugin (`cpbw/v1`). */
  badges?: BadgeOptions;
  /** Shorthand for `badges.auth` (which wins when both are given). */
  badgeAuth?: BadgeAuthOptions;
}

export const DEFAULTS = {
  momo: {
    sandboxMsisdnBase: '46733123450',
    collectionSubscriptionKeys: {
      primary: 'c0ll3ct10n0000000000000000000001',
      secondary: 'c0ll3ct10n0000000000000000000002',
    },
    disbursementSubscriptionKeys: {
      primary: 'd15bur53m3nt00000000000000000001',
      secondary: 'd15bur53m3nt00000000000000000002',
    },
    remittanceSubscriptionKeys: {
      primary: 'r3m1tt4nc30000000000000000000001',
      secondary: 'r3m1tt4nc30000000000000000000002',
    },
    targetEnvironment: 'sandbox',
    currency: 'EUR',
    apiUsers: [
      {
        id: '4f6c1a2b-8d3e-4c5f-9a7b-1e2d3c4b5a69',
        apiKey: '5a1m0m0ap1k3y000000000000000001',
        providerCallbackHost: 'localhost',
      },
    ],
    tokenTtlSeconds: 3600,
    approvalWindowMs: 5 * 60_000,
  },
  airtel: {
    apps: [
      {
        clientId: 'sim-airtel-client-id',
        clientSecret: 'sim-airtel-client-secret',
        callbackAuth: true,
        callbackKey: 'sim-airtel-callback-key',
        hashRecipe: 'stringify-without-hash' as AirtelHashRecipe,
        messageSigning: true,
      },
    ],
    tokenTtlSeconds: 180,
    ambiguousResolveMs: 5 * 60_000,
  },
  daraja: {
    consumerKey: 'sim-daraja-consumer-key',
    consumerSecret: 'sim-daraja-consumer-secret',
    // The passkey Safaricom publishes for the sandbox short code 174379, so sample code works unchanged.
    passkeys: { '174379': 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919' },
    tokenTtlSeconds: 3599,
    c2bValidationTimeoutMs: 8000,
    c2bExternalValidation: false,
    queueTimeoutShape: 'echo' as const,
    queueTimeoutAfterMs: 30_000,
    callbackSourceIp: '196.201.214.200',
    throttleHttpStatus: 429,
  },
  badges: {
    restPrefix: 'wp-json',
    username: 'sim-badge-user',
    password: 'sim-badge-password',
    token: 'sim-badge-token',
    utcOffset: '+03:00',
    createdBy: 'admin',
  },
  approvalDelayMs: 300,
  callbackTimeoutMs: 10_000,
  foreignSourceIp: '203.0.113.50',
  host: '127.0.0.1',
} as const;

export interface ResolvedAirtelApp {
  clientId: string;
  clientSecret: string;
  callbackUrl: string | undefined;
  callbackAuth: boolean;
  callbackKey: string;
  hashRecipe: AirtelHashRecipe;
  messageSigning: boolean;
}

export interface ResolvedOptions {
  port: number;
  host: string;
  timeScale: number;
  approvalDelayMs: number;
  callbackTimeoutMs: number;
  foreignSourceIp: string;
  faults: GlobalFaultsInput;
  log: LogSink;
  momo: {
    sandboxMsisdnBase: string;
    collectionSubscriptionKeys: { primary: string; secondary: string };
    disbursementSubscriptionKeys: { primary: string; secondary: string };
    remittanceSubscriptionKeys: { primary: string; secondary: string };
    disbursementAllowList: string[];
    remittanceAllowList: string[];
    errorSpelling: 'mtn' | 'seed';
    targetEnvironment: string;
    currency: string;
    apiUsers: MomoApiUserSeed[];
    tokenTtlSeconds: number;
    approvalWindowMs: number;
    callbackSourceIp: string | undefined;
  };
  airtel: {
    apps: ResolvedAirtelApp[];
    tokenTtlSeconds: number;
    ambiguousResolveMs: number;
    callbackSourceIp: string | undefined;
    rsaPrivateKeyPem: string | undefined;
  };
  daraja: {
    consumerKey: string;
    consumerSecret: string;
    passkeys: Record<string, string>;
    tokenTtlSeconds: number;
    c2bValidationTimeoutMs: number;
    c2bExternalValidation: boolean;
    queueTimeoutShape: 'echo' | 'result';
    queueTimeoutLateResultMs: number | undefined;
    queueTimeoutAfterMs: number;
    callbackSourceIp: string;
    quotaPerSecond: number | undefined;
    spikeArrestPerSecond: number | undefined;
    throttleHttpStatus: number;
  };
  badges: {
    restPrefix: string;
    auth: { type: 'none' | 'basic' | 'bearer'; username: string; password: string; token: string };
    faults: string;
    utcOffset: string;
    demoBadges: boolean;
    createdBy: string;
  };
}

export function resolveOptions(o: SimulatorOptions = {}): ResolvedOptions {
  const d = DEFAULTS;
  const seeds: AirtelAppSeed[] = o.airtel?.apps ?? d.airtel.apps.map((a) => ({ ...a }));
  const apps = seeds.map((a): ResolvedAirtelApp => ({
    clientId: a.clientId,
    clientSecret: a.clientSecret,
    callbackUrl: a.callbackUrl,
    callbackAuth: a.callbackAuth ?? true,
    callbackKey: a.callbackKey ?? d.airtel.apps[0].callbackKey,
    hashRecipe: a.hashRecipe ?? 'stringify-without-hash',
    messageSigning: a.messageSigning ?? true,
  }));
  return {
    port: o.port ?? 0,
    host: o.host ?? d.host,
    timeScale: o.timeScale ?? 1,
    approvalDelayMs: o.approvalDelayMs ?? d.approvalDelayMs,
    callbackTimeoutMs: o.callbackTimeoutMs ?? d.callbackTimeoutMs,
    foreignSourceIp: o.foreignSourceIp ?? d.foreignSourceIp,
    faults: o.faults ?? {},
    log: o.log ?? ((line: string) => console.log(line)),
    momo: {
      sandboxMsisdnBase: o.momo?.sandboxMsisdnBase ?? d.momo.sandboxMsisdnBase,
      collectionSubscriptionKeys: o.momo?.collectionSubscriptionKeys ?? {
        ...d.momo.collectionSubscriptionKeys,
      },
      disbursementSubscriptionKeys: o.momo?.disbursementSubscriptionKeys ?? {
        ...d.momo.disbursementSubscriptionKeys,
      },
      remittanceSubscriptionKeys: o.momo?.remittanceSubscriptionKeys ?? {
        ...d.momo.remittanceSubscriptionKeys,
      },
      disbursementAllowList: o.momo?.disbursementAllowList ?? [],
      remittanceAllowList: o.momo?.remittanceAllowList ?? [],
      errorSpelling: o.momo?.errorSpelling ?? 'mtn',
      targetEnvironment: o.momo?.targetEnvironment ?? d.momo.targetEnvironment,
      currency: o.momo?.currency ?? d.momo.currency,
      apiUsers: o.momo?.apiUsers ?? d.momo.apiUsers.map((u) => ({ ...u })),
      tokenTtlSeconds: o.momo?.tokenTtlSeconds ?? d.momo.tokenTtlSeconds,
      approvalWindowMs: o.momo?.approvalWindowMs ?? d.momo.approvalWindowMs,
      callbackSourceIp: o.momo?.callbackSourceIp,
    },
    airtel: {
      apps,
      tokenTtlSeconds: o.airtel?.tokenTtlSeconds ?? d.airtel.tokenTtlSeconds,
      ambiguousResolveMs: o.airtel?.ambiguousResolveMs ?? d.airtel.ambiguousResolveMs,
      callbackSourceIp: o.airtel?.callbackSourceIp,
      rsaPrivateKeyPem: o.airtel?.rsaPrivateKeyPem,
    },
    daraja: {
      consumerKey: o.daraja?.consumerKey ?? d.daraja.consumerKey,
      consumerSecret: o.daraja?.consumerSecret ?? d.daraja.consumerSecret,
      passkeys: o.daraja?.passkeys ?? { ...d.daraja.passkeys },
      tokenTtlSeconds: o.daraja?.tokenTtlSeconds ?? d.daraja.tokenTtlSeconds,
      c2bValidationTimeoutMs: o.daraja?.c2bValidationTimeoutMs ?? d.daraja.c2bValidationTimeoutMs,
      c2bExternalValidation: o.daraja?.c2bExternalValidation ?? d.daraja.c2bExternalValidation,
      queueTimeoutShape: o.daraja?.queueTimeoutShape ?? d.daraja.queueTimeoutShape,
      queueTimeoutLateResultMs: o.daraja?.queueTimeoutLateResultMs,
      queueTimeoutAfterMs: o.daraja?.queueTimeoutAfterMs ?? d.daraja.queueTimeoutAfterMs,
      callbackSourceIp: o.daraja?.callbackSourceIp ?? d.daraja.callbackSourceIp,
      quotaPerSecond: o.daraja?.quotaPerSecond,
      spikeArrestPerSecond: o.daraja?.spikeArrestPerSecond,
      throttleHttpStatus: o.daraja?.throttleHttpStatus ?? d.daraja.throttleHttpStatus,
    },
    badges: resolveBadges(o),
  };
}

function resolveBadges(o: SimulatorOptions): ResolvedOptions['badges'] {
  const d = DEFAULTS.badges;
  const auth = o.badges?.auth ?? o.badgeAuth ?? { type: 'none' };
  return {
    restPrefix: (o.badges?.restPrefix ?? d.restPrefix).replace(/^\/+|\/+$/g, ''),
    auth: {
      type: auth.type,
      username: auth.username ?? d.username,
      password: auth.password ?? d.password,
      token: auth.token ?? d.token,
    },
    faults: o.badges?.faults ?? '',
    utcOffset: o.badges?.utcOffset ?? d.utcOffset,
    demoBadges: o.badges?.demoBadges ?? true,
    createdBy: o.badges?.createdBy ?? d.createdBy,
  };
}
