import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundling';
import { PROVIDER_ACK_LIMIT } from '../../infra/monitoring';
import { CALLBACK_INTEGRATION_TIMEOUT } from '../../infra/relay/limits';
import {
  callbackDeadlineSettings,
  inWords,
  PROVIDER_INFRA_DECLARATIONS,
  providerAckLimits,
  providerWords,
} from '../../infra/relay/providers';
import { synthRelay } from './relay-synth';
import { PROVIDERS } from '../../shared/providers/registry';

describe("providers' infra declarations", () => {
  it('declares every provider of the registry, in its order', () => {
    expect(PROVIDER_INFRA_DECLARATIONS.map((d) => d.id)).toEqual(PROVIDERS.map((p) => p.id));
  });

  it('keeps the declaration files free of AWS SDK and CDK imports (the registry puts them in every bundle)', () => {
    for (const { id } of PROVIDER_INFRA_DECLARATIONS) {
      const source = readFileSync(join(PROJECT_ROOT, 'shared/providers', id, 'infra.ts'), 'utf8');
      const imports = [...source.matchAll(/from\s+'([^']+)'/g)].map((m) => m[1]!);
      for (const specifier of imports) expect(specifier, `${id}/infra.ts`).toMatch(/^\.\/[\w-]+$/);
    }
  });

  it('caps every callback deadline setting within the callback integration timeout', () => {
    for (const declaration of PROVIDER_INFRA_DECLARATIONS) {
      for (const deadline of declaration.callbackDeadlines ?? []) {
        expect(deadline.capMs, `${declaration.id} ${deadline.setting}`).toBeLessThanOrEqual(
          CALLBACK_INTEGRATION_TIMEOUT.toMilliseconds(),
        );
      }
    }
  });

  it("reads an account's deadline settings by their dotted key, and only those it sets", () => {
    const [declared] = PROVIDER_INFRA_DECLARATIONS.filter((d) => d.callbackDeadlines?.length);
    const { setting, capMs } = declared!.callbackDeadlines![0]!;
    const settings = setting
      .split('.')
      .reverse()
      .reduce<unknown>((value, key) => ({ [key]: value }), 4321) as Record<string, unknown>;
    expect(callbackDeadlineSettings({ provider: declared!.id, settings })).toEqual([
      { setting, ms: 4321, capMs },
    ]);
    expect(callbackDeadlineSettings({ provider: declared!.id, settings: {} })).toEqual([]);
    expect(callbackDeadlineSettings({ provider: 'no-such-provider', settings })).toEqual([]);
  });

  it('sets the callback latency reference to the longest declared ack limit', () => {
    expect(providerAckLimits().length).toBeGreaterThan(0);
    expect(PROVIDER_ACK_LIMIT.toMilliseconds()).toBe(Math.max(...providerAckLimits().map((l) => l.ms)));
  });
});

describe('providerWords: the providers as operators’ texts name them', () => {
  it('lists words the way a sentence does', () => {
    expect([inWords([]), inWords(['A']), inWords(['A', 'B']), inWords(['A', 'B', 'C'])]).toEqual([
      '',
      'A',
      'A and B',
      'A, B and C',
    ]);
  });

  it('names the providers that do not retry from their declarations, and those that do', () => {
    // Prepare
    const silent = PROVIDER_INFRA_DECLARATIONS.filter((d) => !d.retriesCallbacks).map((d) => d.name);
    const retrying = PROVIDER_INFRA_DECLARATIONS.filter((d) => d.retriesCallbacks).map((d) => d.name);

    // Act
    const doesNotRetry = providerWords.doesNotRetry();

    // Assess
    expect(silent.length).toBeGreaterThan(0);
    expect(doesNotRetry).toBe(`${inWords(silent)} ${silent.length === 1 ? 'does' : 'do'} not retry`);
    expect(providerWords.retrying()).toBe(inWords(retrying));
    expect(providerWords.all()).toBe(inWords(PROVIDER_INFRA_DECLARATIONS.map((d) => d.name)));
  });

  it('names every declared callback check in the nag reason of the public routes', () => {
    // Prepare
    const { resources } = synthRelay('ProviderWordsStack');
    const reasons = Object.values(resources).flatMap(
      (r: any) => r.Metadata?.cdk_nag?.rules_to_suppress?.map((s: { reason: string }) => s.reason) ?? [],
    );
    const apig4 = reasons.find((reason: string) => reason.includes('cannot sign requests'));

    // Assess
    expect(providerWords.callbackChecks().length).toBeGreaterThan(0);
    for (const check of providerWords.callbackChecks()) expect(apig4).toContain(check);
    expect(apig4).toContain(providerWords.all());
  });
});
