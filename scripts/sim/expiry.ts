/**
 * How `--expires <seconds>` (registration `expiresInSeconds`) changes what a scenario should produce. An
 * outcome that never becomes final on its own (Airtel …904 stays TIP; MoMo Ongoing/Delayed stay PENDING
 * until the payer's approval window ends) ends EXPIRED when the transaction's window ends: one
 * TransactionExpired (origin poll). An outcome that becomes final later than the window also expires first
 * (its final answer then arrives as a late resolution). Any other outcome is unchanged.
 */
import type { Expectation } from './core';

/** Simulated outcomes that do not finalize by themselves, and when (if ever) they do. */
export interface Unsettled {
  /** What the provider keeps saying, for the summary: "stays TIP". */
  what: string;
  /** Real ms after which the provider settles it anyway (MoMo approval window); undefined: never. */
  settlesAfterMs?: number;
}

/** A window that ends this close to the provider's own settling is not predictable: not expected to expire. */
export const EXPIRY_MARGIN_MS = 5000;

export function withExpiry(
  expectation: Expectation,
  expiresInSeconds: number | undefined,
  unsettled: Unsettled | undefined,
): Expectation {
  if (expiresInSeconds === undefined || expectation.refusedWith !== undefined) return expectation;
  const windowMs = expiresInSeconds * 1000;
  const expires =
    unsettled !== undefined &&
    (unsettled.settlesAfterMs === undefined || windowMs + EXPIRY_MARGIN_MS < unsettled.settlesAfterMs);
  if (!expires) {
    return { ...expectation, summary: `${expectation.summary} (window ${expiresInSeconds} s)` };
  }
  const what = expectation.summary.replace(/ →.*$/, '');
  const later =
    unsettled.settlesAfterMs === undefined
      ? ''
      : `; the provider settles it after ${(unsettled.settlesAfterMs / 1000).toFixed(0)} s, a late resolution`;
  return {
    summary: `${what}, ${unsettled.what} → the ${expiresInSeconds} s window ends → TransactionExpired${later}`,
    events: [{ type: 'TransactionExpired' }],
    status: 'EXPIRED',
    deliveries: 0,
    waitFor: 'expiry',
  };
}

/** `--expires`: a positive whole number of seconds, or undefined. */
export function parseExpires(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) <= 0)
    throw new Error(`--expires must be a positive whole number of seconds, got "${raw}"`);
  return Number(raw);
}
