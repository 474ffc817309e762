import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundling';
import { PROVIDER_ACK_LIMIT } from '../../infra/monitoring';
import { CALLBACK_INTEGRATION_TIMEOUT } from '../../infra/relay/limits';
import {
  callbackDeadlineSettings,
  PROVIDER_INFRA_DECLARATIONS,
  providerAckLimits,
} from '../../infra/relay/providers';
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
