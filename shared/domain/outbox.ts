import type { EventEnvelope } from './events';

/**
 * The table's stream is the outbox: a write that carries `outbox` events and moves the item's
 * revision publishes them. Re-delivered stream records publish again (at least once); consumers
 * dedupe on metadata.id, which is deterministic.
 */
export function eventsFromChange(
  oldImage: Record<string, unknown> | undefined,
  newImage: Record<string, unknown> | undefined,
): EventEnvelope[] {
  if (!newImage) return [];
  const outbox = newImage.outbox;
  if (!Array.isArray(outbox) || outbox.length === 0) return [];
  if (oldImage && oldImage.revision === newImage.revision) return [];
  return outbox as EventEnvelope[];
}

/** One line a person can read per event, for the local console. */
export function summarizeEvent(event: EventEnvelope): string {
  const d = event.data as Record<string, unknown>;
  const subject = d.provider
    ? `${d.provider}/${d.account}${d.reference ? `/${d.reference}` : ''}`
    : event.metadata.correlationId;
  const amount = d.amount as { value?: string; currency?: string } | null | undefined;
  const reason = d.reason as { code?: string } | null | undefined;
  const parts = [
    event.metadata.type.padEnd(22),
    subject,
    d.status ? String(d.status) : undefined,
    amount?.value ? `${amount.value}${amount.currency ? ` ${amount.currency}` : ''}` : undefined,
    reason?.code ? `reason=${reason.code}` : undefined,
    d.errorCode ? `error=${d.errorCode}` : undefined,
    d.decision ? `decision=${d.decision}` : undefined,
    Array.isArray(d.accounts) ? `accounts=${d.accounts.length}` : undefined,
    d.originalReceipt ? `receipt=${d.originalReceipt}` : undefined,
    conflictOf(d),
    d.lateResolution === true ? 'late-resolution' : undefined,
    evidenceOf(d),
    `(${event.metadata.origin})`,
  ];
  return parts.filter(Boolean).join(' ');
}

function conflictOf(d: Record<string, unknown>): string | undefined {
  const conflict = d.conflict as { kind?: string } | undefined;
  return conflict?.kind ? `conflict=${conflict.kind}` : undefined;
}

/** Why the relay believes a verdict: `evidence=callback(path-secret)+status-api`. */
function evidenceOf(d: Record<string, unknown>): string | undefined {
  if (!Array.isArray(d.evidence) || d.evidence.length === 0) return undefined;
  const items = (d.evidence as { source?: string; authentication?: string[] }[]).map((e) =>
    e.source === 'callback' || e.source === 'buffer'
      ? `${e.source}(${e.authentication?.length ? e.authentication.join('+') : 'unauthenticated'})`
      : String(e.source),
  );
  return `evidence=${items.join('+')}`;
}
