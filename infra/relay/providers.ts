import type { ResolvedAccount } from '../../shared/config/schema';
import { PROVIDER_INFRA } from '../../shared/providers/registry';

/**
 * What infra needs from a provider, declared by the provider module (shared/providers/<p>/infra.ts)
 * and gathered by the registry, so no construct names a provider.
 */
export interface ProviderInfraDeclaration {
  readonly id: string;
  /**
   * The provider's own limit for answering a callback: drawn on the ack latency graph (`label`) and
   * named in the callback latency alarm (`phrase`, e.g. "X's 2 s").
   */
  readonly ackLimit?: { readonly ms: number; readonly label: string; readonly phrase: string };
  /** Account settings (dotted keys) holding a deadline in ms for answering a callback, and its cap. */
  readonly callbackDeadlines?: ReadonlyArray<{ readonly setting: string; readonly capMs: number }>;
}

/** Type-checks every declaration against what infra reads. */
export const PROVIDER_INFRA_DECLARATIONS: readonly ProviderInfraDeclaration[] = PROVIDER_INFRA;

/** The callback deadlines an account sets (only those it sets), with the setting's dotted key. */
export function callbackDeadlineSettings(
  account: Pick<ResolvedAccount, 'provider' | 'settings'>,
): Array<{ setting: string; ms: number; capMs: number }> {
  const declaration = PROVIDER_INFRA_DECLARATIONS.find((p) => p.id === account.provider);
  return (declaration?.callbackDeadlines ?? []).flatMap(({ setting, capMs }) => {
    const ms = setting
      .split('.')
      .reduce<unknown>(
        (value, key) =>
          value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined,
        account.settings,
      );
    return typeof ms === 'number' && ms > 0 ? [{ setting, ms, capMs }] : [];
  });
}

/** The providers' own callback answer limits, in registry order. */
export function providerAckLimits(): Array<{ ms: number; label: string; phrase: string }> {
  return PROVIDER_INFRA_DECLARATIONS.flatMap((p) => (p.ackLimit ? [{ ...p.ackLimit }] : []));
}
