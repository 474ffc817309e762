import type { StatusApiDeps } from '../types';
import type { StatusError } from './types';

const DEFAULT_CREDENTIALS_COOLDOWN_MS = 60_000;

/**
 * Bad credentials give one clear error per account, not one per transaction: once the provider refused
 * the account's credentials, every check within the cooldown answers the same error without calling
 * the provider, and one warning is logged per episode (again only after the credentials worked once).
 */
export class CredentialsGate {
  private refusedUntil = 0;
  private refusal: StatusError | undefined;
  private warned = false;

  constructor(
    private readonly options: {
      provider: string;
      account: string;
      now(): number;
      log: StatusApiDeps['log'];
      cooldownMs?: number;
    },
  ) {}

  /** The cached refusal while the cooldown lasts. */
  blocked(): StatusError | undefined {
    if (!this.refusal || this.options.now() >= this.refusedUntil) return undefined;
    const seconds = Math.ceil((this.refusedUntil - this.options.now()) / 1000);
    return {
      ...this.refusal,
      detail: `${this.refusal.detail} (not retried for ${seconds} s)`,
      retryAfterMs: this.refusedUntil - this.options.now(),
    };
  }

  /** The provider refused the credentials: hold the account for the cooldown; warn once. */
  refuse(error: StatusError): StatusError {
    const cooldownMs = this.options.cooldownMs ?? DEFAULT_CREDENTIALS_COOLDOWN_MS;
    this.refusal = { ...error, retryAfterMs: cooldownMs };
    this.refusedUntil = this.options.now() + cooldownMs;
    if (!this.warned) {
      this.warned = true;
      // The detail names codes and HTTP statuses only: never keys, tokens or numbers.
      this.options.log.warn('provider refused the status API credentials of an account', {
        provider: this.options.provider,
        account: this.options.account,
        error: error.error,
        detail: error.detail,
        cooldownSeconds: Math.round(cooldownMs / 1000),
      });
    }
    return this.refusal;
  }

  /** A token was issued: the credentials work again (the next refusal warns again). */
  accept(): void {
    if (this.refusal) {
      this.options.log.info('provider accepts the status API credentials of the account again', {
        provider: this.options.provider,
        account: this.options.account,
      });
    }
    this.refusal = undefined;
    this.refusedUntil = 0;
    this.warned = false;
  }
}
