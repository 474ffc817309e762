import { airtelProvider } from './airtel';
import { darajaProvider } from './daraja';
import { momoProvider } from './momo';
import type { ProviderModule } from './types';

/** Every provider dialect the relay speaks. Adding one = a folder under providers/ and a line here. */
export const PROVIDERS: readonly ProviderModule<never>[] = [
  momoProvider as ProviderModule<never>,
  airtelProvider as ProviderModule<never>,
  darajaProvider as ProviderModule<never>,
];

export function findProvider(id: string): ProviderModule<unknown> | undefined {
  return PROVIDERS.find((p) => p.id === id) as ProviderModule<unknown> | undefined;
}
