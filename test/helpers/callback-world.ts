import { readFileSync } from 'node:fs';
import { MemoryStore } from '../../shared/adapters/memory/memory-store';
import type { RelayLogger } from '../../shared/app/ports';
import { type RelayServices, scrubbingLogger } from '../../shared/app/services';
import { parseConfig } from '../../shared/config/load';
import type { RelayConfig } from '../../shared/config/schema';
import { secretScrubber } from '../../shared/config/secrets';

/**
 * One relay's callback side on the in-memory store: a MoMo account with a path secret, two Daraja
 * accounts (C2B validation rejecting and accepting by default, a source-IP allow-list) and an Airtel one
 * with a callback key. Shared by the use case's tests (acceptCallback) and the HTTP adapter's
 * (receiveCallback).
 */
export const MOMO_SECRET = 'momo-path-secret-0123456789';
export const DARAJA_SECRET = 'daraja-path-secret-0123456789';
export const AIRTEL_KEY = 'airtel-callback-key-0123456789';
export const REFERENCE = '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f';
export const MOMO_KEY = { provider: 'momo', account: 'demo', reference: REFERENCE };
export const SAFARICOM_IP = '196.201.214.200';

export const c2bRules = (defaultDecision: 'accept' | 'reject') => ({
  deadlineMs: 300,
  defaultDecision,
  defaultRejectCode: 'C2B00016',
  knownAccounts: true,
});

export const config = parseConfig({
  management: { bearerToken: 'management-token-0123456789' },
  accounts: {
    momo: { demo: { pathSecret: MOMO_SECRET, currency: 'EUR', confirmSuccess: false } },
    daraja: {
      ke: {
        pathSecret: DARAJA_SECRET,
        shortCode: '600638',
        c2b: c2bRules('reject'),
        sourceIp: { allow: [`${SAFARICOM_IP}/32`] },
      },
      kea: {
        pathSecret: DARAJA_SECRET,
        shortCode: '600638',
        c2b: c2bRules('accept'),
        sourceIp: { allow: [`${SAFARICOM_IP}/32`] },
      },
    },
    airtel: { ug: { callbackKey: AIRTEL_KEY } },
  },
});

export function fixture(path: string): string {
  return readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8');
}

export interface Line {
  level: string;
  message: string;
  fields: unknown[];
}

/**
 * The store, the log lines and the services (a fixed clock, the scrubbing logger) of one test; another
 * relay's config, store or services (metrics, an ingress buffer) where the test needs them.
 */
export function callbackWorld(
  options: { config?: RelayConfig; store?: MemoryStore; services?: Partial<RelayServices> } = {},
) {
  const { config: relay = config, store = new MemoryStore() } = options;
  const lines: Line[] = [];
  const at =
    (level: string) =>
    (message: string, ...fields: Record<string, unknown>[]) =>
      lines.push({ level, message, fields });
  const inner: RelayLogger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  const scrub = secretScrubber(relay);
  const services: RelayServices = {
    config: relay,
    store,
    clock: { now: () => new Date('2026-11-21T10:00:01.000Z') },
    log: scrubbingLogger(inner, scrub),
    scrub,
    ...options.services,
  };
  return { store, lines, services };
}

export const typesOf = (store: MemoryStore) => store.published.map((e) => e.metadata.type);
