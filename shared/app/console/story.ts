import type { Evidence } from '../../domain/evidence';
import type { ActorRef } from '../../domain/actor';
import type { HistoryEntry } from '../transactions/get-transaction';
import { wallTimeAt } from '../../util/time-zone';

/**
 * The transaction's story as a person reads it (docs/console.md#the-story): one sentence saying why it has
 * its status, computed from the evidence, and the history with repeated identical status checks collapsed.
 * Pure: the answer of GET /v1/transactions/{…} in, text out.
 */
export interface StoryModel {
  sentence: string;
  /** The zone the sentence's and the summaries' clock times are in (`?timeZone=`, UTC by default). */
  timeZone: string;
  /** The history, oldest first, a run of identical checks as one `checks` entry. */
  timeline: StoryEntry[];
}

type StoryEntry =
  /** `title`: the entry in words ("Transition EXPIRED → FAILED (manual) by ana (operator)"). */
  | { kind: 'entry'; entry: HistoryEntry; title: string; said: string | null }
  | {
      kind: 'checks';
      /** How many status calls the run stands for, first and last. */
      count: number;
      from: string;
      to: string;
      answer: string;
      detail: string;
      providerCode: string | null;
      request: string | null;
      by: ActorRef | null;
      summary: string;
    };

type Check = Extract<HistoryEntry, { type: 'status-check' }>;

const WORD: Record<string, string> = {
  SUCCEEDED: 'Paid',
  FAILED: 'Failed',
  EXPIRED: 'Expired',
  AMBIGUOUS: 'Ambiguous',
  PENDING: 'Pending',
};

/** "14:02" in `timeZone`, the time a person reads in a sentence; the timeline shows the full instant. */
function clockOf(at: string, timeZone = 'UTC'): string {
  const ms = Date.parse(at);
  if (timeZone === 'UTC' || Number.isNaN(ms)) return at.slice(11, 16);
  const wall = wallTimeAt(ms, timeZone);
  return `${String(wall.hour).padStart(2, '0')}:${String(wall.minute).padStart(2, '0')}`;
}

/** "not found", "SUCCEEDED", "error (unavailable)": a check's classified answer in words. */
function answerWords(answer: string): string {
  if (answer.startsWith('report:')) return answer.slice('report:'.length);
  if (answer.startsWith('error:')) return `no answer (${answer.slice('error:'.length)})`;
  return answer.replace('-', ' ');
}

const person = (who: ActorRef | undefined | null) => (who ? `${who.name} (${who.role})` : 'someone');

/** What one piece of evidence said, for a callback line: "SUCCEEDED, code 0, “…”, 1 KES". */
function saidOf(e: Evidence): string {
  const parts = [e.claim === 'NOT_FOUND' ? 'not found' : e.claim];
  if (e.providerCode) parts.push(`code ${e.providerCode}`);
  if (e.description) parts.push(`“${e.description}”`);
  if (e.amount) parts.push(`${e.amount.value} ${e.amount.currency ?? ''}`.trim());
  return parts.join(', ');
}

/** One history entry in words, the line the console shows for it (the words live here only). */
function titleOf(entry: HistoryEntry): string {
  switch (entry.type) {
    case 'registered':
      return 'Registered';
    case 'first-seen':
      return 'First seen (a callback nobody registered)';
    case 'callback':
      return `Callback ${entry.method} ${entry.route}`;
    case 'status-check':
      return `Status check, answered '${answerWords(entry.answer)}'`;
    case 'transition': {
      const e = entry.evidence;
      const by = e?.actor ? ` by ${person(e.actor)}` : '';
      const approved = e?.approvedBy ? `, approved by ${person(e.approvedBy)}` : '';
      return `Transition ${entry.from} → ${entry.to} (${entry.origin})${by}${approved}`;
    }
    case 'conflict':
      return `Conflict ${entry.kind}: reported ${entry.reportedStatus}`;
    case 'reversal':
      return `Reversed ${entry.amount ? `${entry.amount.value} ${entry.amount.currency ?? ''}`.trim() : 'the whole payment (amount not said)'}`;
    case 'event':
      return `Event ${entry.eventType}`;
  }
}

function sameRun(a: Check, b: Check): boolean {
  return (
    a.answer === b.answer &&
    a.detail === b.detail &&
    a.providerCode === b.providerCode &&
    (a.request ?? null) === (b.request ?? null) &&
    (a.by?.id ?? null) === (b.by?.id ?? null)
  );
}

function checksEntry(run: Check[], clock: (at: string) => string): StoryEntry {
  const first = run[0]!;
  const last = run.at(-1)!;
  const count = run.reduce((n, c) => n + (c.count ?? 1), 0);
  const from = first.since ?? first.at;
  const answer = `'${answerWords(last.answer)}'`;
  const summary =
    count === 1
      ? `Status check, answered ${answer}`
      : `${count} checks, ${clock(from)}–${clock(last.at)}, all ${answer}`;
  return {
    kind: 'checks',
    count,
    from,
    to: last.at,
    answer: last.answer,
    detail: last.detail,
    providerCode: last.providerCode,
    request: last.request ?? null,
    by: last.by ?? null,
    summary: last.by ? `${summary} (asked by ${person(last.by)})` : summary,
  };
}

/** Every piece of evidence the answer holds, by the receipt that carried it (what each callback said). */
function evidenceByReceipt(evidence: readonly Evidence[], history: readonly HistoryEntry[]) {
  const all = [...evidence];
  for (const h of history) {
    if (h.type === 'transition' && h.evidence) all.push(h.evidence);
    if (h.type === 'conflict') all.push(...h.evidence);
  }
  const byReceipt = new Map<string, Evidence>();
  for (const e of all) if (e.receiptId && !byReceipt.has(e.receiptId)) byReceipt.set(e.receiptId, e);
  return byReceipt;
}

function why(
  tx: { status: string; provider: string },
  providerName: string,
  history: readonly HistoryEntry[],
  evidence: readonly Evidence[],
  checks: number,
  clock: (at: string) => string,
): string {
  const word = WORD[tx.status] ?? tx.status;
  const transitions = history.filter((h) => h.type === 'transition');
  const last = transitions.at(-1);
  const conflicts = history.filter((h) => h.type === 'conflict');
  const conflictNote = conflicts.length
    ? `; ${conflicts.length === 1 ? 'a report disagreed' : `${conflicts.length} reports disagreed`} (published as a conflict)`
    : '';
  const lastCheck = [...history].reverse().find((h): h is Check => h.type === 'status-check');
  if (tx.status === 'PENDING' || !last) {
    const asked = lastCheck
      ? `; ${checks} status check${checks === 1 ? '' : 's'}, the last answered '${answerWords(lastCheck.answer)}' at ${clock(lastCheck.at)}`
      : '';
    return `${word}: no final answer yet${asked}.`;
  }
  if (tx.status === 'EXPIRED') {
    const asked = lastCheck
      ? `${checks} status check${checks === 1 ? '' : 's'}, the last answered '${answerWords(lastCheck.answer)}' at ${clock(lastCheck.at)}`
      : 'no status check could be made';
    return `${word}: no final answer within the reconciliation window (${asked}); money may still move — resolve it after checking with ${providerName}.`;
  }
  const e = last.evidence;
  if (tx.status === 'AMBIGUOUS') {
    const conflict = conflicts.at(-1);
    if (conflict && conflict.type === 'conflict' && conflict.evidence.length >= 2) {
      const [known, came] = conflict.evidence as [Evidence, Evidence];
      return `${word}: ${sourceWords(came, providerName)} said ${came.claim} at ${clock(came.at)} but ${sourceWords(known, providerName)} had said ${known.claim} at ${clock(known.at)}; a person decides.`;
    }
    return `${word}: ${e ? `${sourceWords(e, providerName)} said ${e.claim} at ${clock(e.at)}, not proven yet` : 'reports disagree'}; the relay keeps asking ${providerName}.`;
  }
  if (!e) return `${word} at ${clock(last.at)} (${last.origin})${conflictNote}.`;
  if (e.source === 'operator') {
    const approved = e.approvedBy ? `, approved by ${person(e.approvedBy)}` : '';
    return `${word}: ${last.origin === 'manual' ? 'decided by hand by' : 'vouched for by'} ${person(e.actor)}${approved} at ${clock(e.at)}${conflictNote}.`;
  }
  if (e.source === 'status-api') {
    const hinted = evidence.some(
      (x) => (x.source === 'callback' || x.source === 'buffer') && x.claim === e.claim && !x.conclusive,
    );
    const asked = e.requestedBy ? ` (asked by ${person(e.requestedBy)})` : '';
    return hinted
      ? `${word}: ${providerName}'s status API confirmed the unsigned callback at ${clock(e.at)}${asked}${conflictNote}.`
      : `${word}: ${providerName}'s status API answered ${e.claim}${e.providerCode ? ` (${e.providerCode})` : ''} at ${clock(e.at)}${asked}${conflictNote}.`;
  }
  return `${word}: ${sourceWords(e, providerName)} said so at ${clock(e.at)}${conflictNote}.`;
}

function sourceWords(e: Evidence, providerName: string): string {
  switch (e.source) {
    case 'callback':
    case 'buffer': {
      if (e.authentication.includes('signature')) return `a signed callback from ${providerName}`;
      const how = e.authentication.filter((m) => m === 'path-secret' || m === 'source-ip');
      return how.length
        ? `${providerName}'s callback (${how.join(' and ').replace('-', ' ')} checked)`
        : `an unverified callback`;
    }
    case 'status-api':
      return `${providerName}'s status API`;
    case 'receipt':
      return `${providerName}'s answer to the relay's own status query`;
    case 'statement':
      return `${providerName}'s own statement`;
    case 'operator':
      return person(e.actor);
    case 'registration':
      return 'the registration';
  }
}

export function storyOf(answer: {
  transaction: { status: string; provider: string };
  providerName: string;
  history: readonly HistoryEntry[];
  evidence: readonly Evidence[];
  statusChecks: number;
  /** The zone of the clock times in the sentence and the summaries (default UTC). */
  timeZone?: string;
}): StoryModel {
  const timeZone = answer.timeZone ?? 'UTC';
  const clock = (at: string) => clockOf(at, timeZone);
  const byReceipt = evidenceByReceipt(answer.evidence, answer.history);
  const timeline: StoryEntry[] = [];
  let run: Check[] = [];
  const flush = () => {
    if (run.length) timeline.push(checksEntry(run, clock));
    run = [];
  };
  for (const entry of answer.history) {
    if (entry.type === 'status-check') {
      if (run.length && !sameRun(run.at(-1)!, entry)) flush();
      run.push(entry);
      continue;
    }
    // An event in the middle of a run (an escalation) does not break it: it is listed before the run.
    if (entry.type === 'event' && run.length) {
      timeline.push({ kind: 'entry', entry, title: titleOf(entry), said: null });
      continue;
    }
    flush();
    const said = entry.type === 'callback' ? byReceipt.get(entry.receiptId) : undefined;
    timeline.push({ kind: 'entry', entry, title: titleOf(entry), said: said ? saidOf(said) : null });
  }
  flush();
  return {
    sentence: why(
      answer.transaction,
      answer.providerName,
      answer.history,
      answer.evidence,
      answer.statusChecks,
      clock,
    ),
    timeZone,
    timeline,
  };
}
