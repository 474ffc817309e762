import { decideByPrecedence } from '../evidence';
import { isFinal } from '../status';
import type { NormalizedReport } from '../transaction';
import { type Intake, isOutcome } from './intake';
import type { ApplyContext, ApplyOutcome } from './outcome';
import { advance } from './transition';
import { applyUnconfirmed } from './unconfirmed';
import { unsettled } from './unsettled';

/**
 * Precedence: a claim of another outcome than the transaction's is weighed against the evidence kept
 * (decideByPrecedence, docs/reconciliation.md). A claim that cannot settle on its own is held for a
 * status check; one precedence cannot pick is a conflict; one that settles overrules what said otherwise.
 * Everything else goes straight to the state machine.
 */
export function applyByPrecedence(
  intake: Intake,
  reported: NormalizedReport,
  ctx: ApplyContext,
): ApplyOutcome {
  const { base, incoming, preEvents, isNew, orphan, born } = intake;
  const claim = reported.status;
  // A hint (a reference-less callback found by externalId) changes no status, whatever it claims: one whose
  // status is no outcome (a status the provider's table does not know: AMBIGUOUS) is held as any hint is.
  if (reported.hint && !isOutcome(claim) && claim !== base.status && !isFinal(base.status))
    return applyUnconfirmed(base, reported, incoming, ctx, preEvents, isNew);
  // A final status reported again agrees with itself, whatever a conflict recorded since said.
  if (isOutcome(claim) && base.status !== claim) {
    if (!incoming.conclusive) return applyUnconfirmed(base, reported, incoming, ctx, preEvents, isNew);
    const verdict = decideByPrecedence(base.evidence ?? [], incoming);
    if (verdict.kind === 'conflict') return unsettled(base, reported, incoming, verdict.against, ctx);
    if (verdict.kind === 'settle' && verdict.against)
      return advance(base, reported, incoming, ctx, preEvents, {
        isNew,
        orphan,
        born,
        against: verdict.against,
      });
  }
  return advance(base, reported, incoming, ctx, preEvents, { isNew, orphan, born });
}
