import { type Actor, actorRef, sameActor, vouchedFor } from '../../domain/actor';
import {
  ApprovalNotFoundError,
  ApprovalStateError,
  NamedSignInRequiredError,
  RelayError,
  SchemaValidationError,
  SelfApprovalError,
} from '../../domain/errors';
import type { TransactionKey } from '../../domain/transaction';
import { maskMsisdnsIn } from '../../util/mask';
import { randomBytes } from 'node:crypto';
import type { ApprovalView, ApprovalsAnswer } from '../management-answers';
import type { ApprovalRequest } from '../ports';
import type { ReconcileServices } from '../reconciliation/reconcile';
import type { TransactionView } from '../transactions/register-transaction';
import { AboveLimitError, amountAtStake, limitExceeded } from './four-eyes';
import {
  checkResolvable,
  parseResolution,
  resolveByHand,
  resolutionCurrency,
  resolvedAmount,
  storedKey,
} from '../transactions/operate-transaction';

export type ResolveOutcome =
  | { resolved: true; events: string[]; transaction: TransactionView }
  | { resolved: false; approval: ApprovalView };

/**
 * POST …/resolve: at or under the account's limit the resolution applies at once; above it (or when the
 * amount is unknown) it waits as an approval request for a second person (docs/roles-and-audit.md#four-eyes).
 * The request is checked as fully as a resolution (body, status) before it is stored, so a request that
 * could never apply is refused now, not at approval.
 */
export async function resolveOrRequest(
  services: ReconcileServices,
  key: TransactionKey,
  input: unknown,
  actor: Actor,
): Promise<ResolveOutcome> {
  const resolution = parseResolution(input);
  const txKey = storedKey(key);
  const current = checkResolvable(await services.store.getTransaction(txKey, { consistent: true }), key);
  // A resolution that could never apply (a success without the amount paid) is refused before a request waits.
  resolvedAmount(services.config, current, resolution);
  let amount = amountAtStake(resolution.amount, current);
  let limit = limitExceeded(services, txKey, amount);
  if (limit === undefined) {
    try {
      // Alone: the limit is checked again in the write, on the record it writes over.
      return { resolved: true, ...(await resolveByHand(services, key, resolution, { actor, alone: true })) };
    } catch (error) {
      if (!(error instanceof AboveLimitError)) throw error;
      ({ amount, limit } = error);
    }
  }
  if (!vouchedFor(actor))
    throw new NamedSignInRequiredError(
      `${amount ?? 'An unknown amount'} is above the limit ${limit}, so a second person must approve, and the shared bearer token cannot tell two people apart: ask with a named token, Cognito or IAM (docs/roles-and-audit.md#four-eyes)`,
    );
  const now = services.clock.now();
  const createdAt = now.toISOString();
  const request: ApprovalRequest = {
    // Sorts by creation time (the newest-first list), unique by its random tail.
    id: `${createdAt.replace(/[-:.TZ]/g, '')}-${randomBytes(5).toString('hex')}`,
    createdAt,
    openUntil: new Date(
      now.getTime() + (services.config.management.approvalTtlSeconds ?? 86_400) * 1000,
    ).toISOString(),
    key: txKey,
    resolution: { ...resolution },
    amount,
    currency: resolutionCurrency(services.config, current, resolution) ?? null,
    limit,
    requestedBy: actorRef(actor),
    state: 'pending',
    decidedBy: null,
    decidedAt: null,
    decisionNote: null,
  };
  await services.store.createApproval(request);
  services.log.info('resolution waits for approval', { ...txKey, approval: request.id, by: actor.id });
  return { resolved: false, approval: approvalView(request, now) };
}

function approvalView(request: ApprovalRequest, now: Date): ApprovalView {
  const expired = request.state === 'pending' && Date.parse(request.openUntil) <= now.getTime();
  return {
    id: request.id,
    createdAt: request.createdAt,
    expiresAt: request.openUntil,
    state: expired ? 'expired' : request.state,
    provider: request.key.provider,
    account: request.key.account,
    reference: request.key.reference,
    status: String(request.resolution.status),
    // Notes are free text a person typed: a phone number in them is masked in every answer.
    note: maskMsisdnsIn(String(request.resolution.note)),
    amount: request.amount,
    currency: request.currency,
    limit: request.limit,
    requestedBy: request.requestedBy,
    decidedBy: request.decidedBy,
    decidedAt: request.decidedAt,
    decisionNote: request.decisionNote === null ? null : maskMsisdnsIn(request.decisionNote),
  };
}

const STATES = ['pending', 'approved', 'rejected', 'failed', 'expired'] as const;
/** Requests one list reads at most (newest first): a bounded read per request. */
const APPROVALS_READ = 200;

/** GET /v1/approvals: the newest requests first (at most 200), `?state=` one of STATES. */
export async function listApprovals(
  services: Pick<ReconcileServices, 'store' | 'clock'>,
  query: Record<string, string | undefined>,
): Promise<ApprovalsAnswer> {
  const state = query.state || undefined;
  if (state !== undefined && !(STATES as readonly string[]).includes(state))
    throw new SchemaValidationError(`state must be one of ${STATES.join(', ')}`, {
      details: { parameter: 'state' },
    });
  const now = services.clock.now();
  const read = await services.store.listApprovals(APPROVALS_READ);
  const views = read.map((r) => approvalView(r, now));
  return {
    approvals: state ? views.filter((v) => v.state === state) : views,
    // A full read may have left older requests out: the list (and its CSV) says so.
    complete: read.length < APPROVALS_READ,
  };
}

const decisionNote = (input: unknown): string | null => {
  const note = (input as { note?: unknown } | null)?.note;
  if (note === undefined) return null;
  if (typeof note !== 'string' || note.trim().length > 500)
    throw new SchemaValidationError('note must be text of at most 500 characters');
  return maskMsisdnsIn(note.trim()) || null;
};

async function pendingRequest(
  services: ReconcileServices,
  id: string,
  actor: Actor,
  decision: 'approve' | 'reject',
) {
  if (!/^[\w-]{1,64}$/.test(id)) throw new ApprovalNotFoundError(`No approval request ${id.slice(0, 64)}`);
  const request = await services.store.getApproval(id, { consistent: true });
  if (!request) throw new ApprovalNotFoundError(`No approval request ${id}`);
  const view = approvalView(request, services.clock.now());
  if (view.state !== 'pending')
    throw new ApprovalStateError(`The request is ${view.state}; only a pending one can be decided`);
  if (!vouchedFor(actor))
    throw new NamedSignInRequiredError(
      'Deciding a request above the limit is the second pair of eyes, and the shared bearer token cannot tell two people apart: sign in with a named token, Cognito or IAM (docs/roles-and-audit.md#four-eyes)',
    );
  if (decision === 'approve' && !vouchedFor(request.requestedBy))
    throw new NamedSignInRequiredError(
      'This request was made with the shared bearer token, which cannot tell two people apart: reject it with a named sign-in and ask again with one (docs/roles-and-audit.md#four-eyes)',
    );
  if (sameActor(request.requestedBy, actor))
    throw new SelfApprovalError('A second person must decide: nobody approves or rejects their own request');
  return request;
}

/**
 * Approves a pending request and applies its resolution, naming both people. The request is claimed first
 * (pending → approved, conditional), so two approvers at once apply it once; if the resolution cannot
 * apply any more (the provider answered meanwhile) the request ends `failed` with the reason.
 */
export async function approve(
  services: ReconcileServices,
  id: string,
  input: unknown,
  actor: Actor,
): Promise<{ approval: ApprovalView; events: string[]; transaction: TransactionView }> {
  const request = await pendingRequest(services, id, actor, 'approve');
  const note = decisionNote(input);
  const decided: ApprovalRequest = {
    ...request,
    state: 'approved',
    decidedBy: actorRef(actor),
    decidedAt: services.clock.now().toISOString(),
    decisionNote: note,
  };
  if (!(await services.store.decideApproval(decided, 'pending')))
    throw new ApprovalStateError('The request was decided by someone else meanwhile');
  try {
    const requester: Actor = { ...request.requestedBy };
    const applied = await resolveByHand(services, request.key, request.resolution, {
      actor: requester,
      approvedBy: actor,
    });
    return { approval: approvalView(decided, services.clock.now()), ...applied };
  } catch (error) {
    if (error instanceof RelayError)
      await services.store.decideApproval(
        {
          ...decided,
          state: 'failed',
          decisionNote: `approved, not applied: ${error.message}`.slice(0, 500),
        },
        'approved',
      );
    throw error;
  }
}

export async function reject(
  services: ReconcileServices,
  id: string,
  input: unknown,
  actor: Actor,
): Promise<{ approval: ApprovalView }> {
  const request = await pendingRequest(services, id, actor, 'reject');
  const decided: ApprovalRequest = {
    ...request,
    state: 'rejected',
    decidedBy: actorRef(actor),
    decidedAt: services.clock.now().toISOString(),
    decisionNote: decisionNote(input),
  };
  if (!(await services.store.decideApproval(decided, 'pending')))
    throw new ApprovalStateError('The request was decided by someone else meanwhile');
  return { approval: approvalView(decided, services.clock.now()) };
}
