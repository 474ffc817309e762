import { decideByPrecedence, type Evidence } from '../evidence';
import { isFinal } from '../status';
import type { NormalizedReport, TransactionRecord } from '../transaction';
import type { ApplyContext, ApplyOutcome } from './outcome';
import { advance } from './transition';
import { unsettled } from './unsettled';

/**
 * A "not found" status answer. It never settles while any callback reported on the reference: that is a
 * conflict (often the request was made with another API user), and the transaction is escalated. With
 * no such report it settles FAILED (NOT_ACCEPTED) only when the not-found rule is met (`settles`).
 */
export function applyNotFound(
  base: TransactionRecord,
  report: NormalizedReport,
  incoming: Evidence,
  ctx: ApplyContext,
): ApplyOutcome {
  const verdict = decideByPrecedence(base.evidence ?? [], incoming);
  if (verdict.kind === 'conflict') return unsettled(base, report, incoming, verdict.against, ctx);
  if (!report.notFound?.settles || isFinal(base.status)) return { kind: 'noop', why: 'stale' };
  return advance(base, report, incoming, ctx, [], { isNew: false, orphan: false, born: false });
}
