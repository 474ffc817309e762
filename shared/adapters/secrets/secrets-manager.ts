import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { captureClient } from '../tracing/xray';

import type { SecretReader } from '../../config/secret-reader';

/** The port this adapter implements (shared/config/secret-reader.ts), re-exported for its callers. */
export type { SecretReader };

/** A secret could not be read. The message names the secret id, never a value. */
export class SecretReadError extends Error {
  constructor(
    readonly secretId: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SecretReadError';
  }
}

/**
 * How long a read secret is reused before Secrets Manager is asked again. With the config's refresh
 * (DEFAULT_SECRET_REFRESH_MS, 1 minute) a rotated secret reaches a warm function within 6 minutes.
 */
export const DEFAULT_SECRET_TTL_MS = 5 * 60_000;

export interface SecretsManagerReaderOptions {
  client?: SecretsManagerClient;
  /** @default 5 minutes */
  ttlMs?: number;
  now?: () => number;
}

/**
 * Secrets Manager behind a TTL cache: one GetSecretValue per secret per TTL (concurrent reads of the
 * same secret share one call), so the accounts sharing a secret, and a warm Lambda re-reading its config,
 * cost one call. Failures are not cached: the next read asks again. Only text secrets (SecretString).
 */
export class SecretsManagerSecretReader {
  private readonly client: SecretsManagerClient;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly cache = new Map<string, { expiresAt: number; value: Promise<string> }>();

  constructor(options: SecretsManagerReaderOptions = {}) {
    this.client =
      options.client ??
      captureClient(
        new SecretsManagerClient({
          // A cold start must not hang on a stalled call: bounded attempts (the SDK retries throttling
          // and 5xx with backoff within them), each bounded in time.
          maxAttempts: 3,
          requestHandler: { connectionTimeout: 2000, requestTimeout: 3000, throwOnRequestTimeout: true },
        }),
      );
    this.ttlMs = options.ttlMs ?? DEFAULT_SECRET_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /** The reader as a plain function (what `loadConfig` takes). */
  readonly read: SecretReader = (secretId) => {
    const cached = this.cache.get(secretId);
    if (cached && cached.expiresAt > this.now()) return cached.value;
    const value = this.fetch(secretId);
    const entry = { expiresAt: this.now() + this.ttlMs, value };
    this.cache.set(secretId, entry);
    value.catch(() => {
      if (this.cache.get(secretId) === entry) this.cache.delete(secretId);
    });
    return value;
  };

  /** Forgets every cached secret (the next read asks Secrets Manager). */
  clear(): void {
    this.cache.clear();
  }

  private async fetch(secretId: string): Promise<string> {
    let output;
    try {
      output = await this.client.send(new GetSecretValueCommand({ SecretId: secretId }));
    } catch (cause) {
      const error = cause as Error;
      throw new SecretReadError(
        secretId,
        `cannot read secret "${secretId}" from Secrets Manager: ${error.name}: ${error.message}`,
        { cause },
      );
    }
    if (typeof output.SecretString !== 'string') {
      throw new SecretReadError(
        secretId,
        `secret "${secretId}" has no text value (SecretString): store JSON text, not a binary secret`,
      );
    }
    return output.SecretString;
  }
}

let shared: SecretsManagerSecretReader | undefined;

/** One reader (one client, one cache) per process: what the composition roots inject into `loadConfig`. */
export function sharedSecretReader(): SecretReader {
  shared ??= new SecretsManagerSecretReader();
  return shared.read;
}
