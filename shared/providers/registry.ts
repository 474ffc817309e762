import { airtelProvider } from './airtel';
import { airtelInfra } from './airtel/infra';
import { darajaProvider } from './daraja';
import { darajaInfra } from './daraja/infra';
import { momoProvider } from './momo';
import { momoInfra } from './momo/infra';
import type { ProviderModule } from './types';

/** Every provider dialect the relay speaks. Adding one = a folder under providers/ and a line here. */
export const PROVIDERS: readonly ProviderModule<never>[] = [
  momoProvider as ProviderModule<never>,
  airtelProvider as ProviderModule<never>,
  darajaProvider as ProviderModule<never>,
];

/** What infra/ needs from each provider (callback deadlines, ack limits), in the same order. */
export const PROVIDER_INFRA = [momoInfra, airtelInfra, darajaInfra] as const;

export function findProvider(id: string): ProviderModule<unknown> | undefined {
  return PROVIDERS.find((p) => p.id === id) as ProviderModule<unknown> | undefined;
}

const phoneFieldSets = new Map<string, ReadonlySet<string>>(
  PROVIDERS.map((p) => [p.id, new Set(p.phoneFields)] as const),
);
/** Every provider's phone-number fields: for a payload whose provider is not known (a refused request). */
const ANY_PHONE_FIELDS: ReadonlySet<string> = new Set(PROVIDERS.flatMap((p) => p.phoneFields));

/** The payload members and attributes of a provider that may carry a phone number (util/mask.ts). */
export function phoneFieldsOf(providerId: string | null | undefined): ReadonlySet<string> {
  return (providerId ? phoneFieldSets.get(providerId) : undefined) ?? ANY_PHONE_FIELDS;
}
