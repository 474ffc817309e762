/**
 * The simulator's registry: which provider ids the simulator plays, and how each is pointed at a relay.
 * A provider with a simulator adds its `simulator/<id>/relay-wiring.ts` and a line here; a provider
 * without one needs nothing (local/simulator-wiring.ts skips it with a banner line).
 */
import { airtelSimulatorWiring } from './airtel/relay-wiring';
import { darajaSimulatorWiring } from './daraja/relay-wiring';
import { momoSimulatorWiring } from './momo/relay-wiring';
import type { ProviderSimulatorWiring } from './relay-wiring';

const WIRINGS = new Map<string, ProviderSimulatorWiring>([
  ['momo', momoSimulatorWiring],
  ['airtel', airtelSimulatorWiring],
  ['daraja', darajaSimulatorWiring],
]);

export function findSimulatorWiring(providerId: string): ProviderSimulatorWiring | undefined {
  return WIRINGS.get(providerId);
}

/**
 * Adds a provider's simulator without a line above: the injection point the fake-provider test uses
 * (test/unit/local/simulator-wiring.test.ts). Returns the undo.
 */
export function registerSimulatorWiring(providerId: string, wiring: ProviderSimulatorWiring): () => void {
  if (WIRINGS.has(providerId)) throw new Error(`simulator wiring ${providerId} is registered already`);
  WIRINGS.set(providerId, wiring);
  return () => void WIRINGS.delete(providerId);
}
