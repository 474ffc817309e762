import { airtelProvider } from './airtel';
import { darajaProvider } from './daraja';
import { momoProvider } from './momo';
import type { ProviderInfraDeclaration, ProviderModule, ProviderStatements } from './types';

/**
 * Every provider dialect the relay speaks. Adding one = a folder under providers/ and a line here. Its
 * module declares everything the relay derives from this list: routing, config, timings, phone fields,
 * acks, decisions, registration rules, infra facts (PROVIDER_INFRA), operators' and the console's name
 * (GET /v1/me), events' `provider` (EVENT_PROVIDERS, checked equal by a test). The one part kept apart is
 * a status API client (status-api-registry.ts, one line more for a provider that has one): the callback
 * bundles must not carry the clients (test/unit/providers/registry-derived.test.ts ties the two lists).
 */
const REGISTERED: ProviderModule<never>[] = [
  momoProvider as ProviderModule<never>,
  airtelProvider as ProviderModule<never>,
  darajaProvider as ProviderModule<never>,
];
export const PROVIDERS: readonly ProviderModule<never>[] = REGISTERED;

const INFRA: ProviderInfraDeclaration[] = [];
/**
 * What infra/ needs from each provider (callback deadlines, ack limits, alarms, operators' words), in
 * registry order: each module's `infra`, kept in step with registerProvider (the same array, refilled).
 */
export const PROVIDER_INFRA: readonly ProviderInfraDeclaration[] = INFRA;

export function findProvider(id: string): ProviderModule<unknown> | undefined {
  return PROVIDERS.find((p) => p.id === id) as ProviderModule<unknown> | undefined;
}

const phoneFieldSets = new Map<string, ReadonlySet<string>>();
/** Every provider's phone-number fields: for a payload whose provider is not known (a refused request). */
const ANY_PHONE_FIELDS = new Set<string>();
/** Refills what is derived from the registered modules (infra declarations, phone fields). */
function reindex(): void {
  INFRA.splice(0, INFRA.length, ...PROVIDERS.map((p) => p.infra));
  phoneFieldSets.clear();
  ANY_PHONE_FIELDS.clear();
  for (const p of PROVIDERS) {
    phoneFieldSets.set(p.id, new Set(p.phoneFields));
    for (const field of p.phoneFields) ANY_PHONE_FIELDS.add(field);
  }
}
reindex();

/**
 * Adds a provider without a line above: the injection point the fake-provider test uses to show that a
 * provider folder is all the relay needs (test/unit/providers/fake-provider.test.ts). Returns the undo.
 * Register before the config is parsed (accounts are validated against the registry).
 */
export function registerProvider<S>(module: ProviderModule<S>): () => void {
  if (findProvider(module.id)) throw new Error(`provider ${module.id} is registered already`);
  REGISTERED.push(module as ProviderModule<never>);
  reindex();
  return () => {
    const at = REGISTERED.indexOf(module as ProviderModule<never>);
    if (at >= 0) REGISTERED.splice(at, 1);
    reindex();
  };
}

/** The payload members and attributes of a provider that may carry a phone number (util/mask.ts). */
export function phoneFieldsOf(providerId: string | null | undefined): ReadonlySet<string> {
  return (providerId ? phoneFieldSets.get(providerId) : undefined) ?? ANY_PHONE_FIELDS;
}

/** What a provider declares about its records (its `statements.ts`); {} (every default) when it declares none. */
export function statementsOf(providerId: string): ProviderStatements<unknown> {
  return findProvider(providerId)?.statements ?? {};
}
