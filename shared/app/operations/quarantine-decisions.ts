import { type Actor, actorRef } from '../../domain/actor';
import {
  QuarantineDecidedError,
  QuarantineEntryNotFoundError,
  QuarantineNotAcceptableError,
  SchemaValidationError,
} from '../../domain/errors';
import type { NormalizedReport, TransactionRecord } from '../../domain/transaction';
import { accountKey } from '../../config/schema';
import { findProvider } from '../../providers/registry';
import { findRegistrationRules } from '../../providers/registration-registry';
import { maskMsisdnsIn } from '../../util/mask';
import { scrubThenTruncate } from '../../util/redact';
import { hasControlCharacters } from '../../util/text';
import { newId } from '../../util/ids';
import type { QuarantineDecision, QuarantineEntry } from '../ports';
import type { ReconcileServices } from '../reconciliation/reconcile';
import { resolveCorrelation } from '../transactions/ingest-report';
import { decideReport, decisionContext } from '../transactions/decide-report';
import { writeWithRetry } from '../transactions/write-with-retry';
import { amountAtStake, limitExceeded } from './four-eyes';

/** The route name refused management calls were quarantined under before the audit log took them. */
export const MANAGEMENT_ROUTE_NAME = 'management';
const MAX_NOTE = 500;

/** What a decision names: the entry (its time and id, its key) and why. */
interface DecisionInput {
  receivedAt: string;
  note: string;
}

/** `{receivedAt, note}`: the entry's time (GET /v1/quarantine answers it) and why, 3 to 500 characters. */
function parseDecision(body: Record<string, unknown>): DecisionInput {
  const { receivedAt, note } = body;
  if (typeof receivedAt !== 'string' || !/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(receivedAt))
    throw new SchemaValidationError('receivedAt must be the entry’s receivedAt (GET /v1/quarantine)', {
      details: { parameter: 'receivedAt' },
    });
  const text = typeof note === 'string' ? note.trim() : '';
  if (text.length < 3 || text.length > MAX_NOTE || hasControlCharacters(text))
    throw new SchemaValidationError(
      `note (why) is required: 3 to ${MAX_NOTE} characters without control characters`,
      { details: { parameter: 'note' } },
    );
  const extra = Object.keys(body).filter((k) => k !== 'receivedAt' && k !== 'note');
  if (extra.length)
    throw new SchemaValidationError(`Unknown field ${extra[0]}`, { details: { parameter: extra[0] } });
  return { receivedAt, note: text };
}

export interface DecisionAnswer {
  decision: Omit<QuarantineDecision, 'claim'>;
  /** The same decision was taken before (by whoever `decision.by` names): nothing was done again. */
  repeated: boolean;
}

const shown = ({ claim: _claim, ...decision }: QuarantineDecision): DecisionAnswer['decision'] => decision;

/** The same decision again answers the first one (idempotent); the other decision is a 409. */
function alreadyDecided(kind: QuarantineDecision['kind'], held: QuarantineDecision): DecisionAnswer {
  if (held.kind !== kind)
    throw new QuarantineDecidedError(
      `This entry was ${held.kind} by ${held.by.name} at ${held.at}; it cannot be ${kind} now`,
    );
  return { decision: shown(held), repeated: true };
}

/**
 * The report a refused callback makes once a person vouches for it: parsed by the route's own parser from
 * the stored (redacted) body, placed by the same correlation as any callback, and then an operator's word
 * (origin `manual`, authenticated as them), so it goes through the one decision like a resolution.
 */
async function reportOf(
  services: ReconcileServices,
  entry: QuarantineEntry,
  by: Actor,
  note: string,
  now: string,
): Promise<NormalizedReport> {
  const refuse = (why: string) => new QuarantineNotAcceptableError(`This entry cannot be accepted: ${why}`);
  if (entry.routeName === MANAGEMENT_ROUTE_NAME || !entry.provider || !entry.account || !entry.routeName)
    throw refuse('it is not a callback to a configured provider route');
  const provider = findProvider(entry.provider);
  const account = services.config.accounts.get(accountKey(entry.provider, entry.account));
  const route = provider?.routes.find((r) => r.name === entry.routeName);
  if (!provider || !account || !route) throw refuse(`${entry.provider}/${entry.account} is not configured`);
  if (route.asks) throw refuse('it asked a question that had to be answered at once');
  if (entry.bodyEncoding !== 'utf8' || entry.bodyTruncated)
    throw refuse('its body was not stored whole (too large, or not text)');
  let body: unknown;
  try {
    body = JSON.parse(entry.body);
  } catch {
    throw refuse('its body is not JSON');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw refuse('its body is not a JSON object');
  const parsed = (() => {
    try {
      return route.parse({
        account: {
          provider: provider.id,
          id: account.id,
          pathSecret: account.pathSecret,
          settings: account.settings,
        },
        route: route.name,
        params: paramsOf(route.path, entry.path),
        body: body as Record<string, unknown>,
        rawBody: Buffer.from(entry.body),
        headers: entry.headers ?? {},
        sourceIp: entry.sourceIp,
      });
    } catch (error) {
      throw refuse(`the provider's parser refuses it (${(error as Error).message})`);
    }
  })();
  if (parsed.type !== 'reports' || parsed.reports.length !== 1)
    throw refuse('it does not report exactly one transaction');
  const intent = parsed.reports[0]!;
  if (intent.hint) throw refuse('it does not name its transaction (a hint only)');
  const { status } = intent.draft;
  if (status !== 'SUCCEEDED' && status !== 'FAILED')
    throw refuse(`it reports ${status}, not an outcome a person can vouch for`);
  const placed = intent.correlate?.length
    ? await resolveCorrelation(services.store, provider.id, account.id, intent.correlate, {
        consistent: true,
      })
    : { reference: intent.draft.key.reference };
  if (!placed) throw refuse('it names no reference');
  const reference =
    findRegistrationRules(provider.id)?.normalizeReference?.(placed.reference) ?? placed.reference;
  const who = actorRef(by);
  return {
    ...intent.draft,
    key: { provider: provider.id, account: account.id, reference },
    receivedAt: now,
    origin: 'manual',
    receiptId: undefined,
    // The operator's word: authenticated as them (a named token, Cognito, IAM), ranked as a resolution.
    authenticated: true,
    actor: who,
    eventDetail: {
      acceptedFromQuarantine: {
        quarantineId: entry.id,
        receivedAt: entry.receivedAt,
        errorCode: entry.errorCode,
        note,
        by: who,
      },
    },
  };
}

/**
 * A route's `{name}` values from the stored path (`/v1/<provider>/<account>[/{secret}]/<route…>`), matched
 * against the route's pattern from the end, as the router matched them (shared/http/router.ts).
 */
function paramsOf(pattern: string, storedPath: string): Record<string, string> {
  const parts = pattern.split('/').filter(Boolean);
  const segments = storedPath.split('/').filter(Boolean).slice(-parts.length);
  const params: Record<string, string> = {};
  parts.forEach((part, i) => {
    if (part.startsWith('{') && part.endsWith('}') && segments[i] !== undefined) {
      try {
        params[part.slice(1, -1)] = decodeURIComponent(segments[i]!);
      } catch {
        params[part.slice(1, -1)] = segments[i]!;
      }
    }
  });
  return params;
}

async function claim(
  services: ReconcileServices,
  id: string,
  input: DecisionInput,
  decision: QuarantineDecision,
): Promise<DecisionAnswer | undefined> {
  const taken = await services.store.claimQuarantineDecision(input.receivedAt, id, decision);
  if (taken.result === 'missing')
    throw new QuarantineEntryNotFoundError(`No quarantine entry ${id} received at ${input.receivedAt}`);
  if (taken.result === 'decided') return alreadyDecided(decision.kind, taken.decision);
  return undefined;
}

function cleanNote(services: ReconcileServices, note: string): string {
  return scrubThenTruncate(maskMsisdnsIn(services.scrub(note)), MAX_NOTE, (text) => text);
}

/**
 * Accepting is one person's word settling a transaction, as a resolution is: above the account's four-eyes
 * limit (the larger of the callback's amount and the held one; unknown counts as above) it is refused, and
 * the way on is a resolution, which waits for a second person's approval. Checked in the write, on the
 * record it writes over: the refusal releases the claimed decision as any failed application does.
 */
function refuseAboveLimit(
  services: ReconcileServices,
  report: NormalizedReport,
  current: TransactionRecord,
): void {
  const amount = amountAtStake(report.amount?.value, current);
  const limit = limitExceeded(services, report.key, amount);
  if (limit === undefined) return;
  throw new QuarantineNotAcceptableError(
    `This entry cannot be accepted by one person: ${amount === null ? 'its amount is unknown' : `it settles ${amount}`}, above this account's limit ${limit}. Resolve ${report.key.reference} instead (POST /v1/transactions/${report.key.provider}/${report.key.account}/{reference}/resolve, once it is AMBIGUOUS or EXPIRED): above the limit a second person approves (docs/roles-and-audit.md#four-eyes)`,
  );
}

/**
 * POST /v1/quarantine/{id}/accept: after review, a person vouches for a refused provider callback. Its
 * report is applied through the one decision as an operator's word (evidence source `operator` naming
 * them; the event's `acceptedFromQuarantine`), once: the decision is claimed on the entry first
 * (conditional), released if the report cannot apply, so a retry can try again.
 */
export async function acceptQuarantined(
  services: ReconcileServices,
  id: string,
  body: Record<string, unknown>,
  by: Actor,
): Promise<DecisionAnswer> {
  const input = parseDecision(body);
  const entry = await services.store.getQuarantineEntry(input.receivedAt, id);
  if (!entry)
    throw new QuarantineEntryNotFoundError(`No quarantine entry ${id} received at ${input.receivedAt}`);
  if (entry.decision) return alreadyDecided('accepted', entry.decision);
  const now = services.clock.now().toISOString();
  const note = cleanNote(services, input.note);
  const report = await reportOf(services, entry, by, note, now);
  const decision: QuarantineDecision = {
    kind: 'accepted',
    at: now,
    by: actorRef(by),
    note,
    claim: newId(),
    state: 'applying',
  };
  const earlier = await claim(services, id, input, decision);
  if (earlier) return earlier;
  try {
    const written = await writeWithRetry(
      services.store,
      report.key,
      (current) => {
        if (!current)
          throw new QuarantineNotAcceptableError(
            `This entry cannot be accepted: it names ${report.key.reference}, which the relay does not know (register it first)`,
          );
        refuseAboveLimit(services, report, current);
        const outcome = decideReport(
          current,
          report,
          decisionContext(services.config.reconciliation, current, now),
        );
        if (outcome.kind !== 'write') return { result: { status: current.status, events: [] as string[] } };
        return {
          next: outcome.next,
          result: { status: outcome.next.status, events: outcome.events.map((e) => e.metadata.type) },
        };
      },
      { what: `accept quarantined callback ${id}` },
    );
    const done: QuarantineDecision = {
      ...decision,
      state: 'done',
      applied: { reference: report.key.reference, status: written.status, events: written.events },
    };
    await services.store.settleQuarantineDecision(input.receivedAt, id, decision.claim, done);
    services.log.info('quarantined callback accepted', {
      quarantineId: id,
      ...report.key,
      status: written.status,
      by: by.id,
    });
    return { decision: shown(done), repeated: false };
  } catch (error) {
    // Not applied: the entry stays undecided, so the decision can be taken again once the cause is fixed.
    await services.store.settleQuarantineDecision(input.receivedAt, id, decision.claim, undefined);
    throw error;
  }
}

/** POST /v1/quarantine/{id}/dismiss: reviewed and left refused; nothing else changes. */
export async function dismissQuarantined(
  services: ReconcileServices,
  id: string,
  body: Record<string, unknown>,
  by: Actor,
): Promise<DecisionAnswer> {
  const input = parseDecision(body);
  const decision: QuarantineDecision = {
    kind: 'dismissed',
    at: services.clock.now().toISOString(),
    by: actorRef(by),
    note: cleanNote(services, input.note),
    claim: newId(),
    state: 'done',
  };
  const earlier = await claim(services, id, input, decision);
  if (earlier) return earlier;
  return { decision: shown(decision), repeated: false };
}
