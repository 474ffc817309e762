import { findProvider } from '../../providers/registry';
import type { DecisionHandler } from '../../providers/types';

/**
 * The decision handlers are the providers': `ProviderModule.decisions`, by the `useCase` a route's
 * question names. The app asks here and names no provider; a new kind of question is one handler in
 * its provider's folder plus one line in that provider's module.
 */
export function decisionHandlerFor(provider: string, useCase: string): DecisionHandler | undefined {
  return findProvider(provider)?.decisions?.[useCase];
}
