import type { ReportDraft } from './transaction';

/**
 * The question an asynchronous status query asked, and whether an answer answers it. The relay records
 * what it asked (the ids the query named, e.g. Daraja's `TransactionID` or `OriginatorConversationID`)
 * with the record of the query; an answer names what it is about under the same names. Only an answer
 * that names every id the query asked, with the same value, is the provider's answer to that query:
 * anything else is about another transaction (a forged result, or the provider answering something else),
 * whoever can reach the route.
 */
export type StatusQuestion = Readonly<Record<string, string>>;

/** What disagrees between the question and what the answer says it is about; undefined when it answers it. */
export function unansweredQuestion(
  asked: StatusQuestion,
  answersAbout: Readonly<Record<string, string | undefined>> | undefined,
): string | undefined {
  const names = Object.keys(asked);
  if (names.length === 0) return 'the record of the query names nothing it asked';
  for (const name of names) {
    const said = answersAbout?.[name];
    if (said !== asked[name])
      return `it names ${name} ${said ?? '(none)'}; the query asked about ${asked[name]}`;
  }
  return undefined;
}

/** The record's question as stored (a provider record's data), if it is one. */
export function readStatusQuestion(value: unknown): StatusQuestion | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const entries = Object.entries(value);
  return entries.every(([, v]) => typeof v === 'string') ? Object.fromEntries(entries) : undefined;
}

/**
 * A status answer that is not the answer to the question it is placed under: kept as a report, so the
 * disagreement is seen (AMBIGUOUS, CONFLICTING_REPORTS), without the receipt it names (another
 * transaction's), never a status that settles.
 */
export function heldAsOtherAnswer<D extends ReportDraft>(draft: D, mismatch: string, asked: string): D {
  return {
    ...draft,
    status: 'AMBIGUOUS',
    reason: {
      code: 'CONFLICTING_REPORTS',
      message: `the status result of the relay's query is about another transaction: ${mismatch}`,
      providerCode: 'STATUS_RESULT_MISMATCH',
    },
    providerTransactionId: undefined,
    attributes: { ...draft.attributes, StatusResultMismatch: mismatch, StatusQueryReference: asked },
  };
}
