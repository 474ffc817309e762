import { buildEvent, correlationIdOf } from '../../domain/events';
import type { ProviderRecord } from '../../domain/provider-record';
import type { TransactionKey } from '../../domain/transaction';
import * as z from '../../util/zod';
import type {
  DeadlineQuestion,
  DecisionDraft,
  DecisionFacts,
  DecisionHandler,
  DecisionTools,
} from '../types';
import {
  C2B_KNOWN_ACCOUNT_NAMESPACE,
  C2B_VALIDATION_NAMESPACE,
  type C2BValidationQuestion,
} from './c2b-question';
import { askPartnerEndpoint } from './c2b-sources';
import { type C2BDecisionSources, decideC2BValidation } from './c2b-validation';

/** What a C2B validation decided, as its provider record keeps it (and the ingress buffer carries it). */
interface C2BDecisionDraft extends DecisionDraft {
  rule: string;
  detail: string;
  deadlineApplied: boolean;
  defaultApplied: boolean;
  sourceError: string | null;
  elapsedMs: number;
  deadlineMs: number;
  billRefNumber: string | null;
  amount: { value: string; currency?: string } | null;
  /** Masked as it arrived. */
  msisdn: string | null;
}

type C2BDecisionFacts = C2BDecisionDraft & DecisionFacts;

const c2bDecisionFactsSchema = z.strictObject({
  decision: z.string(),
  resultCode: z.string(),
  rule: z.string(),
  detail: z.string(),
  deadlineApplied: z.boolean(),
  defaultApplied: z.boolean(),
  sourceError: z.nullable(z.string()),
  elapsedMs: z.number(),
  deadlineMs: z.number(),
  billRefNumber: z.nullable(z.string()),
  amount: z.nullable(z.strictObject({ value: z.string(), currency: z.optional(z.string()) })),
  msisdn: z.nullable(z.string()),
  decidedAt: z.iso.datetime(),
});

function sourcesFor(question: C2BValidationQuestion, tools: DecisionTools): C2BDecisionSources {
  const sources: C2BDecisionSources = {};
  if (question.knownAccounts) {
    sources.knownAccount = async (billRef, signal) => {
      const record = await tools.readRecord(C2B_KNOWN_ACCOUNT_NAMESPACE, billRef, signal);
      return Boolean(record && record.data.active !== false);
    };
  }
  const partner = question.partner;
  if (partner) {
    sources.partner = (signal) =>
      askPartnerEndpoint(partner, question.key.account, question.payload, signal, tools.fetchImpl);
  }
  return sources;
}

/** A C2B validation as the app's decision use case asks it: Daraja's rules, sources and default. */
export function c2bDeadlineQuestion(question: C2BValidationQuestion): DeadlineQuestion {
  return {
    key: question.key,
    deadlineMs: question.deadlineMs,
    logFields: { transId: question.key.reference, msisdn: question.msisdn },
    async decide(tools, budgetMs): Promise<C2BDecisionDraft> {
      const outcome = await decideC2BValidation(question.input, question.rules, sourcesFor(question, tools), {
        budgetMs,
      });
      return {
        decision: outcome.decision,
        resultCode: outcome.resultCode,
        rule: outcome.rule,
        detail: outcome.detail,
        deadlineApplied: outcome.deadlineApplied,
        defaultApplied: outcome.defaultApplied,
        sourceError: outcome.sourceError ?? null,
        elapsedMs: outcome.elapsedMs,
        deadlineMs: question.deadlineMs,
        billRefNumber: question.billRefNumber ?? null,
        amount: question.amount ?? null,
        msisdn: question.msisdn ?? null,
      };
    },
  };
}

/**
 * The decision's provider record, with C2BValidationDecided in its outbox (published once: first writer
 * wins). Its origin is `callback` when written on the callback path, `buffer` when a buffered validation
 * is applied later (like every event of a buffered message; the decision itself was made, and answered,
 * at callback time: `decidedAt` says when). The event id does not depend on the origin.
 */
function c2bDecisionRecord(
  key: TransactionKey,
  decided: DecisionFacts,
  receiptId: string | undefined,
  receivedAt: string,
  origin: 'callback' | 'buffer' = 'callback',
): ProviderRecord {
  const facts = decided as C2BDecisionFacts;
  const { deadlineMs, decidedAt, ...rest } = facts;
  const data = { ...rest, receiptId: receiptId ?? null, decidedAt };
  const event = buildEvent(
    'C2BValidationDecided',
    correlationIdOf({ key }),
    'c2b-validation',
    origin,
    receivedAt,
    {
      provider: key.provider,
      account: key.account,
      kind: 'c2b',
      reference: key.reference,
      ...data,
      deadlineMs,
      transId: key.reference,
      receivedAt,
    },
  );
  return {
    provider: key.provider,
    account: key.account,
    namespace: C2B_VALIDATION_NAMESPACE,
    id: key.reference,
    createdAt: decidedAt,
    data: {
      ...data,
      // What a later confirmation of the same TransID joins to its transaction (see ingestIntents).
      link: {
        ValidationDecision: data.decision,
        ValidationResultCode: data.resultCode,
        ValidationRule: data.rule,
        ...(receiptId ? { ValidationReceiptId: receiptId } : {}),
      },
      ...(facts.amount ? { expectedAmount: facts.amount } : {}),
    },
    outbox: [event],
  };
}

/** Daraja's decision handler for `c2b-validation` questions (ProviderModule.decisions). */
export const C2B_VALIDATION_DECISIONS: DecisionHandler = {
  label: 'c2b validation',
  logFacts: (facts) => ({ rule: facts.rule, deadlineApplied: facts.deadlineApplied }),
  factsSchema: c2bDecisionFactsSchema as unknown as z.ZodMiniType<DecisionFacts>,
  record: c2bDecisionRecord,
};
