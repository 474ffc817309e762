import type { CallbackConfig } from '../config/callback-config';
import type { RelayConfig } from '../config/schema';
import { type Scrubber, scrubValue } from '../util/redact';
import type { StatementStore } from './statements/statement-store';
import type { DeliveryAdmin } from './delivery/destinations-admin';
import type {
  BadgeApiSource,
  CallbackStore,
  Clock,
  FetchLike,
  IngressBuffer,
  RelayLogger,
  RelayMetrics,
  RelayStore,
  SecretReader,
} from './ports';

/** What every use case may depend on, wired once per process (shared/runtime, local/relay.ts). */
export interface RelayServices {
  config: RelayConfig;
  store: RelayStore;
  clock: Clock;
  /** Scrubs configured secrets from everything it logs. */
  log: RelayLogger;
  scrub: Scrubber;
  /** For the partner's C2B decision endpoint; the global fetch by default. */
  fetchImpl?: FetchLike;
  /**
   * Takes a callback when the store cannot (SQS in AWS, a spool directory under `npm start`). Absent:
   * a store failure is answered 503, as before the buffer existed.
   */
  ingressBuffer?: IngressBuffer;
  /** Callback metrics (CallbacksRejected, CallbacksBuffered…); absent: noMetrics. */
  metrics?: RelayMetrics;
  /** Reads secrets by id at run time (badge shops' `secretId`): Secrets Manager, wired by the runtime. */
  readSecret?: SecretReader;
  /** Opens a badge shop's API (the badge feed): the WordPress client adapter, wired by the runtime. */
  badgeApi?: BadgeApiSource;
  /** The provider's own records (docs/statements.md): the DynamoDB adapter, wired by the runtime. */
  statements?: StatementStore;
  /** Webhook destinations for the management API (docs/webhooks.md): wired by the runtime. */
  deliveries?: DeliveryAdmin;
  /** Limits lowered by a test; absent: the production values. */
  limits?: RelayLimits;
}

/**
 * What the callback path (receive-callback.ts) depends on: the services with the callback path's store
 * and config sections only, which is all the callback function is wired with
 * (shared/runtime/lambda-callback.ts).
 */
export type CallbackServices = Omit<RelayServices, 'store' | 'config'> & {
  store: CallbackStore;
  config: CallbackConfig;
};

/**
 * Limits a test lowers to reach what lies past them with a few dozen requests instead of thousands
 * (every one absent in production: each use case's own constant).
 */
export interface RelayLimits {
  /** Unmatched hints an account may take a day (IngestDeps). @default HINTS_PER_ACCOUNT_PER_DAY */
  hintsPerAccountPerDay?: number;
  /** Quarantine entries one page request looks at. @default MAX_EXAMINED (list-quarantine.ts) */
  quarantineExamined?: number;
}

/** A logger that removes every configured secret value from messages and fields before they are written. */
export function scrubbingLogger(log: RelayLogger, scrub: Scrubber): RelayLogger & { inner: RelayLogger } {
  const wrap =
    (write: (message: string, ...extra: Record<string, unknown>[]) => void) =>
    (message: string, ...extra: Record<string, unknown>[]) =>
      write(scrub(message), ...extra.map((e) => scrubValue(e, scrub) as Record<string, unknown>));
  return {
    // The wrapped logger, so the middy chain can still inject the Lambda context into Powertools.
    inner: log,
    debug: wrap(log.debug.bind(log)),
    info: wrap(log.info.bind(log)),
    warn: wrap(log.warn.bind(log)),
    error: wrap(log.error.bind(log)),
  };
}
