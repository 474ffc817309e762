import type { ResolvedAccount } from '../../shared/config/schema';
import { PROVIDER_INFRA } from '../../shared/providers/registry';
import type { ProviderDecisionRoute, ProviderInfraDeclaration } from '../../shared/providers/types';

// The declarations' shape lives with the providers (each provider module carries its own `infra`).
export type { ProviderDecisionRoute, ProviderInfraDeclaration } from '../../shared/providers/types';

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

/** Every provider's decision routes, with the provider's id. */
export function providerDecisionRoutes(): Array<ProviderDecisionRoute & { provider: string }> {
  return PROVIDER_INFRA_DECLARATIONS.flatMap((p) =>
    (p.decisionRoutes ?? []).map((route) => ({ ...route, provider: p.id })),
  );
}

/** The published callback sources of every provider that declares some, by provider id. */
export function providerCallbackSources(): Record<string, readonly string[]> {
  return Object.fromEntries(
    PROVIDER_INFRA_DECLARATIONS.flatMap((p) =>
      p.callbackSources?.length ? [[p.id, p.callbackSources]] : [],
    ),
  );
}

/** " (text)", or nothing for an empty text: a phrase that may have nothing to say. */
export function inParentheses(text: string): string {
  return text ? ` (${text})` : '';
}

/** "A", "A and B", "A, B and C". */
export function inWords(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * The providers as operators' texts name them, from their declarations, so that infra names no provider
 * and a new one shows up in every alarm description and nag reason that concerns it. Every list may be
 * empty (no provider declares the thing): each phrase reads right then too.
 */
export function providerWordsOf(declarations: readonly ProviderInfraDeclaration[]) {
  const names = (keep: (p: ProviderInfraDeclaration) => boolean) =>
    declarations.filter(keep).map((p) => p.name);
  const doesNotRetry = (): string => {
    const silent = names((p) => !p.retriesCallbacks);
    return silent.length ? `${inWords(silent)} ${silent.length === 1 ? 'does' : 'do'} not retry` : '';
  };
  return {
    /** Every provider, in registry order: "A, B and C". */
    all: (): string => inWords(names(() => true)),
    /** "A does not retry", "A and B do not retry"; empty when every provider retries. */
    doesNotRetry,
    /** The providers that never retry: "A". */
    nonRetrying: (): string => inWords(names((p) => !p.retriesCallbacks)),
    /**
     * What happens to a callback answered 5xx, as a sentence with a leading space: " A does not retry
     * callbacks (the poller reconciles them); B and C retry." Empty without providers.
     */
    retrySentence: (): string => {
      const none = doesNotRetry();
      const some = inWords(names((p) => p.retriesCallbacks));
      if (!none && !some) return '';
      const parts = [
        ...(none ? [`${none} callbacks (the poller reconciles them)`] : []),
        ...(some ? [`${some} retry`] : []),
      ];
      return ` ${parts.join('; ')}.`;
    },
    /** What authenticates callbacks besides path secrets, one entry per provider that declares it. */
    callbackChecks: (): string[] =>
      declarations.flatMap((p) => (p.callbackCheck ? [p.callbackCheck.name] : [])),
    /** What a refused callback usually points at, one entry per provider that declares it. */
    misconfigurations: (): string[] =>
      declarations.flatMap((p) => (p.callbackCheck ? [p.callbackCheck.misconfigured] : [])),
    /** The providers whose callbacks are checked by source address, in words. */
    sourceIpChecked: (): string => inWords(names((p) => p.callbackCheck?.checksSourceIp === true)),
    /** The callback URL registrations kept with providers, one entry per provider that has one. */
    urlRegistrations: (): string[] =>
      declarations.flatMap((p) => (p.urlRegistration ? [p.urlRegistration] : [])),
  };
}

/** The words of the registry's providers. */
export const providerWords = providerWordsOf(PROVIDER_INFRA_DECLARATIONS);
