import { InvalidReferenceError } from '../../domain/errors';
import type {
  CorrelationCandidate,
  DeadlineQuestion,
  FactIntent,
  ParsedCallback,
  ReportIntent,
} from '../../providers/types';
import { type Scrubber, scrubbedDeep } from '../../util/redact';

type Reports = Extract<ParsedCallback, { type: 'reports' }>;

const ID_REFUSAL = 'The callback names an id that contains a configured secret: refused, never stored';

/**
 * Every parsed callback passes here, whatever it says: reports and facts (withoutSecrets), or a question
 * the relay answers within a deadline (questionWithoutSecrets).
 */
export function parsedWithoutSecrets(parsed: ParsedCallback, scrub: Scrubber): ParsedCallback {
  if (parsed.type === 'reports') return withoutSecrets(parsed, scrub);
  return { ...parsed, question: questionWithoutSecrets(parsed.question, scrub) };
}

/**
 * Every callback's reports pass here once parsed, whatever the provider: a configured secret a provider
 * echoes in its words (Daraja's ResultDesc) is scrubbed out of everything the reports and facts carry, so
 * no event, evidence, transaction or log line built from them holds it (status answers are scrubbed the
 * same way by reconciliation). An id cannot be scrubbed: "[REDACTED]" would name another transaction, or
 * merge two. A callback whose ids carry a secret is refused instead (400, quarantined like any refusal).
 */
function withoutSecrets(parsed: Reports, scrub: Scrubber): Reports {
  if (idsOf(parsed).some((id) => scrub(id) !== id)) throw new InvalidReferenceError(ID_REFUSAL);
  return scrubbedDeep(parsed, scrub);
}

/**
 * A question (Daraja's C2B validation) under the same guard: its reference (the TransID, which keys its
 * receipt, decision record and event) is refused when it carries a configured secret; its log fields and
 * everything its decision records (the BillRefNumber, the rule's detail, a source's error: the record, the
 * C2BValidationDecided event, the buffered copy, the log lines) are scrubbed as the decision comes back.
 * It is decided on what the provider sent (a scrubbed BillRefNumber would name another account): only
 * what leaves the decision is scrubbed, a few short strings, well within the question's deadline.
 */
function questionWithoutSecrets(question: DeadlineQuestion, scrub: Scrubber): DeadlineQuestion {
  const { reference } = question.key;
  if (scrub(reference) !== reference) throw new InvalidReferenceError(ID_REFUSAL);
  return {
    key: question.key,
    deadlineMs: question.deadlineMs,
    logFields: scrubbedDeep(question.logFields, scrub),
    decide: async (tools, budgetMs) => scrubbedDeep(await question.decide(tools, budgetMs), scrub),
  };
}

const values = (candidates: readonly CorrelationCandidate[] | undefined) =>
  (candidates ?? []).map((c) => c.value);

function reportIds(intent: ReportIntent): (string | null | undefined)[] {
  const { draft } = intent;
  return [
    draft.key.reference,
    draft.providerTransactionId,
    draft.externalId,
    ...values(intent.correlate),
    ...values(intent.samePaymentAs),
    ...(intent.aliases ?? []).map((a) => a.value),
    intent.link?.id,
    intent.ownQuery?.reference,
    intent.ownQuery?.claims.providerTransactionId,
    ...Object.values(intent.answersAbout ?? {}),
  ];
}

function factIds(fact: FactIntent): (string | null | undefined)[] {
  return [
    fact.id,
    ...(fact.aliases ?? []),
    ...values(fact.about),
    fact.receipt,
    ...(fact.supersededBy ?? []).map((s) => s.id),
  ];
}

/** The identities the reports and facts name (references, receipts, aliases): never rewritten. */
function idsOf(parsed: Reports): string[] {
  const ids = [...parsed.reports.flatMap(reportIds), ...(parsed.facts ?? []).flatMap(factIds)];
  return ids.filter((id): id is string => typeof id === 'string' && id.length > 0);
}
