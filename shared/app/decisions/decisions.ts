import type { ReceiptDraft } from '../callbacks/receipts';
import type { RelayServices } from '../services';
import { decideC2BValidation } from './decide-c2b-validation';

/** What a provider's question (a route whose `parse` returns a decision) is answered with. */
export interface DecisionAnswer {
  resultCode: string;
  repeated: boolean;
  buffered?: boolean;
}

export type DecisionHandler = (
  services: RelayServices,
  question: unknown,
  receipt: ReceiptDraft,
  started: number,
  requestId: string,
) => Promise<DecisionAnswer>;

/**
 * The decision handlers, by the `useCase` a provider route names: the callback use case asks here and
 * names no provider. A new kind of question is one handler plus one line.
 */
export const DECISION_HANDLERS: Record<string, DecisionHandler> = {
  'c2b-validation': decideC2BValidation,
};
