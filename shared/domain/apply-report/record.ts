import type { EventEnvelope } from '../events';
import type { Evidence } from '../evidence';
import type { TransactionRecord } from '../transaction';
import { withEvidence } from './intake';
import { type ApplyContext, type ApplyOutcome, withEvents } from './outcome';

/** Evidence kept (and maybe a status check asked for) without a change of status. */
export function record(
  base: TransactionRecord,
  incoming: Evidence,
  ctx: ApplyContext,
  reconcile: TransactionRecord['reconcile'],
  extra: EventEnvelope[],
  isNew: boolean,
  preEvents: EventEnvelope[],
  /** Something besides evidence and schedule changed (a conflict's repeat count): write even so. */
  changed = false,
): ApplyOutcome {
  const evidence = withEvidence(base.evidence, incoming);
  const unchanged =
    !changed &&
    !isNew &&
    extra.length === 0 &&
    evidence.length === (base.evidence?.length ?? 0) &&
    JSON.stringify(reconcile) === JSON.stringify(base.reconcile);
  if (unchanged) return { kind: 'noop', why: 'same-status' };
  const events = [...preEvents, ...extra];
  const next: TransactionRecord = {
    ...base,
    evidence,
    reconcile,
    updatedAt: ctx.now,
    ...(isNew ? { revision: 0 } : {}),
  };
  return {
    kind: 'write',
    effect: isNew ? (base.registered ? 'created' : 'orphan-created') : 'recorded',
    next: withEvents(next, events),
    events,
  };
}
