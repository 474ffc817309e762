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
  providerWordsOf,
} from '../../infra/relay/providers';
import { sharedRelay } from './relay-synth';
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

  it('words the retry behaviour of any set of providers, none and all included', () => {
    // Prepare
    const provider = (name: string, retriesCallbacks: boolean) => ({
      id: name.toLowerCase(),
      name,
      retriesCallbacks,
    });
    const mixed = providerWordsOf([provider('A', false), provider('B', true), provider('C', true)]);
    const twoSilent = providerWordsOf([provider('A', false), provider('B', false)]);
    const allRetry = providerWordsOf([provider('B', true)]);
    const none = providerWordsOf([]);

    // Act
    const sentences = [mixed, twoSilent, allRetry, none].map((words) => words.retrySentence());
    const silent = [mixed, twoSilent, allRetry, none].map((words) => words.doesNotRetry());

    // Assess
    expect(sentences).toEqual([
      ' A does not retry callbacks (the poller reconciles them); B and C retry.',
      ' A and B do not retry callbacks (the poller reconciles them).',
      ' B retry.',
      '',
    ]);
    expect(silent).toEqual(['A does not retry', 'A and B do not retry', '', '']);
  });

  it('lists only what the providers declare: checks, misconfigurations, source-IP checks, URL registrations', () => {
    // Prepare
    const words = providerWordsOf([
      { id: 'a', name: 'A', retriesCallbacks: false },
      {
        id: 'b',
        name: 'B',
        retriesCallbacks: true,
        callbackCheck: { name: 'B hash', misconfigured: 'B key' },
      },
      {
        id: 'c',
        name: 'C',
        retriesCallbacks: true,
        callbackCheck: { name: 'C allow-list', misconfigured: 'C IPs', checksSourceIp: true },
        urlRegistration: 'C URL registration',
      },
    ]);

    // Act
    const lists = [
      words.callbackChecks(),
      words.misconfigurations(),
      words.sourceIpChecked(),
      words.urlRegistrations(),
      words.all(),
    ];

    // Assess
    expect(lists).toEqual([
      ['B hash', 'C allow-list'],
      ['B key', 'C IPs'],
      'C',
      ['C URL registration'],
      'A, B and C',
    ]);
    expect(providerWordsOf([{ id: 'a', name: 'A', retriesCallbacks: true }]).sourceIpChecked()).toBe('');
  });

  it('names every declared callback check in the nag reason of the public routes', () => {
    // Prepare
    const { resources } = sharedRelay();
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
