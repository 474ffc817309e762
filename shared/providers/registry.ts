import { airtelProvider } from './airtel';
import { airtelInfra } from './airtel/infra';
import { darajaProvider } from './daraja';
import { darajaInfra } from './daraja/infra';
import { momoProvider } from './momo';
import { momoInfra } from './momo/infra';
import type { ProviderModule } from './types';

/**
 * Every provider dialect the relay speaks. Adding one = a folder under providers/ and a line here (its
 * `infra.ts` in PROVIDER_INFRA below, and when it has them, its status API and registration rules in
 * status-api-registry.ts and registration-registry.ts). Everything else (routing, config, timings, phone
 * fields, acks, decisions) reads the provider through this list.
 */
const REGISTERED: ProviderModule<never>[] = [
  momoProvider as ProviderModule<never>,
  airtelProvider as ProviderModule<never>,
  darajaProvider as ProviderModule<never>,
];
export const PROVIDERS: readonly ProviderModule<never>[] = REGISTERED;

/** What infra/ needs from each provider (callback deadlines, ack limits), in the same order. */
export const PROVIDER_INFRA = [momoInfra, airtelInfra, darajaInfra] as const;

export function findProvider(id: string): ProviderModule<unknown> | undefined {
  return PROVIDERS.find((p) => p.id === id) as ProviderModule<unknown> | undefined;
}

const phoneFieldSets = new Map<string, ReadonlySet<string>>();
/** Every provider's phone-number fields: for a payload whose provider is not known (a refused request). */
const ANY_PHONE_FIELDS = new Set<string>();
function indexPhoneFields(): void {
  phoneFieldSets.clear();
  ANY_PHONE_FIELDS.clear();
  for (const p of PROVIDERS) {
    phoneFieldSets.set(p.id, new Set(p.phoneFields));
    for (const field of p.phoneFields) ANY_PHONE_FIELDS.add(field);
  }
}
indexPhoneFields();

/**
 * Adds a provider without a line above: the injection point the fake-provider test uses to show that a
 * provider folder is all the relay needs (test/unit/providers/fake-provider.test.ts). Returns the undo.
 * Register before the config is parsed (accounts are validated against the registry).
 */
export function registerProvider<S>(module: ProviderModule<S>): () => void {
  if (findProvider(module.id)) throw new Error(`provider ${module.id} is registered already`);
  REGISTERED.push(module as ProviderModule<never>);
  indexPhoneFields();
  return () => {
    const at = REGISTERED.indexOf(module as ProviderModule<never>);
    if (at >= 0) REGISTERED.splice(at, 1);
    indexPhoneFields();
  };
}

/** The payload members and attributes of a provider that may carry a phone number (util/mask.ts). */
export function phoneFieldsOf(providerId: string | null | undefined): ReadonlySet<string> {
  return (providerId ? phoneFieldSets.get(providerId) : undefined) ?? ANY_PHONE_FIELDS;
}
