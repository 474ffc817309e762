/**
 * Issue 32 item 2: `npm start -- --simulator` wires the simulator by iterating the provider registry and
 * looking each provider up in the simulator's registry (simulator/relay-wirings.ts), so a provider added in
 * one registry line is either wired (its simulator declared) or skipped with a named banner line, and the
 * three real providers keep their wiring: callback host, Airtel apps, Daraja C2B registrations, status APIs.
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  noSimulatorLine,
  pointPartnerUrlsAtSimulator,
  simulatorApiSettings,
  simulatorWiring,
} from '../../../local/simulator-wiring';
import { parseConfig } from '../../../shared/config/load';
import type { RelayConfig } from '../../../shared/config/schema';
import { registerProvider } from '../../../shared/providers/registry';
import { DEFAULTS } from '../../../simulator/options';
import { registerSimulatorWiring } from '../../../simulator/relay-wirings';
import { createSimulator, type Simulator } from '../../../simulator/server';
import { fakeProvider } from '../../fixtures/providers/fake';

const RELAY = 'http://localhost:3999';
const SIM = 'http://127.0.0.1:4999';

function demoConfig(extraAccounts: Record<string, unknown> = {}): RelayConfig {
  const demo = JSON.parse(readFileSync('local/demo-config.json', 'utf8'));
  return parseConfig({
    ...demo,
    publicBaseUrl: 'https://relay.example.org',
    accounts: { ...demo.accounts, ...extraAccounts },
  });
}

let sim: Simulator;
beforeAll(async () => {
  sim = await createSimulator({ log: () => {} });
});
afterAll(() => sim.close());

describe('the simulator wiring of the three real providers', () => {
  it('points MoMo at the relay host, gives each Airtel account an app on its route and registers each Daraja short code', async () => {
    // Prepare
    const config = demoConfig();
    const airtel = [...config.accounts.values()].filter((a) => a.provider === 'airtel');
    const daraja = [...config.accounts.values()].filter((a) => a.provider === 'daraja');

    // Act
    const wiring = simulatorWiring(RELAY, config);
    const registered = await wiring.setup(sim.url);

    // Assess
    expect(wiring.options.momo?.apiUsers?.map((u) => u.providerCallbackHost)).toEqual(
      DEFAULTS.momo.apiUsers.map(() => 'relay.example.org'),
    );
    expect(wiring.options.airtel?.apps?.map((app) => app.callbackUrl)).toEqual(
      airtel.map((a) => `${RELAY}/v1/airtel/${a.id}${a.pathSecret ? `/${a.pathSecret}` : ''}/callback`),
    );
    expect(registered.map((r) => r.account)).toEqual(daraja.map((a) => a.id));
    const banner = wiring.describe();
    expect(banner.filter((line) => line.startsWith('MoMo '))).toHaveLength(1);
    expect(banner.filter((line) => line.startsWith('Airtel '))).toHaveLength(airtel.length);
    expect(banner.filter((line) => line.startsWith('Daraja   C2B short code'))).toHaveLength(daraja.length);
    expect(banner.some((line) => line.includes('no simulator'))).toBe(false);
  });

  it('points every account without its own status API at the simulator with its provider settings', () => {
    // Prepare
    const config = demoConfig();

    // Act
    const pointed = pointPartnerUrlsAtSimulator(config, SIM);

    // Assess
    const baseUrls = [...pointed.accounts.values()].map((a) => [
      a.provider,
      (a.settings as { api?: { baseUrl?: string } }).api?.baseUrl,
    ]);
    expect(new Set(baseUrls.map(([provider]) => provider))).toEqual(new Set(['momo', 'airtel', 'daraja']));
    for (const [, baseUrl] of baseUrls) expect(baseUrl).toBe(SIM);
  });
});

describe('a provider added in one registry line', () => {
  let unregister: (() => void)[] = [];
  afterEach(() => {
    for (const undo of unregister.reverse()) undo();
    unregister = [];
  });
  const fakeAccounts = {
    fakepay: { shop: { pathSecret: 'fakepay-path-secret-0123456789', signingKey: 'k'.repeat(24) } },
  };

  it('is skipped with a banner line naming its accounts when the simulator does not play it', () => {
    // Prepare
    unregister.push(registerProvider(fakeProvider));
    const config = demoConfig(fakeAccounts);
    const shop = [...config.accounts.values()].find((a) => a.provider === 'fakepay')!;

    // Act
    const wiring = simulatorWiring(RELAY, config);

    // Assess
    expect(wiring.describe()).toContain(noSimulatorLine('fakepay', ['shop']));
    expect(noSimulatorLine('fakepay', ['shop'])).toBe(
      'fakepay  no simulator for this provider: fakepay/shop get no simulated callbacks',
    );
    expect(Object.keys(wiring.options)).toEqual(['momo', 'airtel']);
    expect(simulatorApiSettings(config, shop, SIM)).toBeUndefined();
  });

  it('is wired through the simulator registry when its simulator declares a wiring', async () => {
    // Prepare
    unregister.push(registerProvider(fakeProvider));
    const setUp: string[] = [];
    unregister.push(
      registerSimulatorWiring('fakepay', {
        apiSettings: (_config, account, simUrl) => ({ baseUrl: `${simUrl}/fakepay/${account.id}` }),
        wire: (relayUrl, config) => ({
          setup: async (simUrl) => {
            setUp.push(simUrl);
            return [];
          },
          describe: () => [
            `Fakepay  ${[...config.accounts.values()].filter((a) => a.provider === 'fakepay').length} account → ${relayUrl}`,
          ],
        }),
      }),
    );
    const config = demoConfig(fakeAccounts);

    // Act
    const wiring = simulatorWiring(RELAY, config);
    const pointed = pointPartnerUrlsAtSimulator(config, SIM);
    await wiring.setup(sim.url);

    // Assess
    const banner = wiring.describe();
    expect(banner).toContain(`Fakepay  1 account → ${RELAY}`);
    expect(banner.some((line) => line.includes('no simulator'))).toBe(false);
    expect(setUp).toEqual([sim.url]);
    const shop = [...pointed.accounts.values()].find((a) => a.provider === 'fakepay')!;
    expect((shop.settings as { api?: { baseUrl?: string } }).api?.baseUrl).toBe(`${SIM}/fakepay/shop`);
  });
});
