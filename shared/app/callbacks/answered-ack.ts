import { findProvider } from '../../providers/registry';

/** The acknowledgement a stored callback was answered with, as a person reads it in its history. */
export interface AnsweredAck {
  statusCode: number;
  body: unknown;
  /** What a repeated delivery of the same body was answered (the provider's duplicate ack). */
  repeat: { statusCode: number; body: unknown };
}

/**
 * The ack a stored callback got. It is not stored: a stored (or buffered) callback is always answered with
 * its provider's ack for its route, so it follows from the provider and route; a refused one has no
 * receipt (its answer is in the quarantine). A question's answer (a route that `asks`, e.g. C2B validation)
 * depends on the decision, which its own record keeps: null here.
 */
export function answeredAck(provider: string, route: string, receiptId: string): AnsweredAck | null {
  const module = findProvider(provider);
  if (!module || module.routes.find((candidate) => candidate.name === route)?.asks) return null;
  const first = module.ack({ route, duplicate: false, receiptId });
  const repeat = module.ack({ route, duplicate: true, receiptId });
  return {
    statusCode: first.statusCode,
    body: first.body ?? null,
    repeat: { statusCode: repeat.statusCode, body: repeat.body ?? null },
  };
}
