import { describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../../shared/providers/registry';

describe('the provider registry', () => {
  it('has every question route name a decision handler of its own provider', () => {
    // Prepare
    const asked = PROVIDERS.flatMap((provider) =>
      provider.routes
        .filter((route) => route.asks !== undefined)
        .map((route) => ({ provider: provider.id, route: route.name, asks: route.asks! })),
    );

    // Act
    const unanswered = asked.filter(
      ({ provider, asks }) => !PROVIDERS.find((p) => p.id === provider)?.decisions?.[asks],
    );

    // Assess
    expect(asked.length).toBeGreaterThan(0);
    expect(unanswered).toEqual([]);
  });

  it('has every decision handler asked by at least one route of its provider', () => {
    // Act
    const orphans = PROVIDERS.flatMap((provider) =>
      Object.keys(provider.decisions ?? {})
        .filter((useCase) => !provider.routes.some((route) => route.asks === useCase))
        .map((useCase) => `${provider.id}/${useCase}`),
    );

    // Assess
    expect(orphans).toEqual([]);
  });
});
