import { hasControlCharacters } from '../../util/text';
import * as z from '../../util/zod';
import { SchemaValidationError } from '../../domain/errors';
import type { Reason } from '../../domain/reasons';
import { sha256Hex } from '../../util/ids';
import { toDecimalString } from '../../util/money';
import type {
  BalanceResultReader,
  CallbackInput,
  CorrelationCandidate,
  FactIntent,
  ParsedCallback,
} from '../types';
import { RECEIPT } from './correlation';
import { canonicalDarajaCode, mapDarajaCode } from './mapping';
import { parse } from './parse';
import { collectParams, first, type Params } from './normalize';
import {
  type DarajaAccountSettings,
  resultSchema,
  timeoutEchoShapeSchema,
  timeoutResultShapeSchema,
} from './schema';

/**
 * Account balance and reversal results (docs/routes.md#daraja-account-balance-and-reversal). Neither is a
 * transaction status: a balance is a statement about the short code's accounts, a reversal a new fact
 * about a payment that already succeeded (its SUCCEEDED stays). Both become FactIntents: one event per
 * request, whatever Daraja repeats.
 */

type Input = CallbackInput<DarajaAccountSettings>;

const BALANCE_FACT = 'account-balance';
const BALANCE_TIMEOUT_FACT = 'account-balance-timeout';
const REVERSAL_FACT = 'reversal';
const REVERSAL_TIMEOUT_FACT = 'reversal-timeout';

/** One account of Daraja's AccountBalance string. */
interface DarajaBalanceAccount {
  name: string;
  currency: string;
  /** Decimal strings (shared/util/money.ts); null where the segment has no such field. */
  current: string;
  available: string | null;
  reserved: string | null;
  uncleared: string | null;
}

const MAX_ACCOUNTS = 50;
const CURRENCY = /^[A-Z]{3}$/;
/** Daraja's account names are short ("Organization Settlement Account"); a long one is not an account. */
const isAccountName = (name: string) => name.length >= 1 && name.length <= 100 && !hasControlCharacters(name);
/** Daraja API docs: ResultDesc is at most 1024 characters. */
const MAX_DESCRIPTION = 1024;

/**
 * Daraja's `AccountBalance` value: accounts separated by `&`, each `Name|Currency|Current|Available|Reserved|Uncleared`
 * ("Working Account|KES|481000.00|481000.00|0.00|0.00&Float Account|KES|0.00|…"). Only name, currency and the
 * first amount are required; a segment that is not an account refuses the whole string (no half balance).
 */
export function parseAccountBalance(value: string): DarajaBalanceAccount[] {
  const segments = value.split('&').filter((segment) => segment.trim() !== '');
  if (segments.length === 0) throw new SchemaValidationError('Daraja AccountBalance is empty');
  if (segments.length > MAX_ACCOUNTS)
    throw new SchemaValidationError(`Daraja AccountBalance lists over ${MAX_ACCOUNTS} accounts`);
  return segments.map((segment, index) => {
    const [name = '', currency = '', ...amounts] = segment.split('|').map((field) => field.trim());
    const decimals = amounts.map((amount) => (amount === '' ? null : (toDecimalString(amount) ?? undefined)));
    if (!isAccountName(name) || !CURRENCY.test(currency) || !decimals[0] || decimals.includes(undefined))
      throw new SchemaValidationError(
        `Daraja AccountBalance account ${index + 1} is not "Name|Currency|Amount|…" (got ${JSON.stringify(segment.slice(0, 80))})`,
      );
    const [current, available = null, reserved = null, uncleared = null] = decimals as (string | null)[];
    return { name, currency, current: current as string, available, reserved, uncleared };
  });
}

const facts = (...intents: FactIntent[]): ParsedCallback => ({
  type: 'reports',
  reports: [],
  facts: intents,
});

interface Ids {
  OriginatorConversationID?: string | null;
  ConversationID?: string | null;
  TransactionID?: string | null;
}

/** The fact's other id: a result names the request by OriginatorConversationID and ConversationID. */
function otherIds(result: Ids, id: string): string[] {
  return [result.OriginatorConversationID, result.ConversationID].filter(
    (value): value is string => Boolean(value) && value !== id,
  );
}

function ids(result: Ids) {
  return {
    originatorConversationId: result.OriginatorConversationID || null,
    conversationId: result.ConversationID || null,
  };
}

/** One fact per request: its OriginatorConversationID, else Daraja's ConversationID. */
function requestId(result: Ids): string | undefined {
  return result.OriginatorConversationID || result.ConversationID || undefined;
}

function reasonOf(code: string, message: string | null | undefined, context: 'balance' | 'reversal'): Reason {
  const mapped = mapDarajaCode(code, message, context);
  return {
    code: mapped.reason ?? 'UNKNOWN',
    // The table's meanings are comments (mapping.ts): without Daraja's words the code says it.
    message: message ? message.slice(0, MAX_DESCRIPTION) : `Daraja ResultCode ${canonicalDarajaCode(code)}`,
    providerCode: canonicalDarajaCode(code),
  };
}

function timeoutReason(code: string | null | undefined, message: string | null | undefined): Reason {
  return {
    code: 'TIMED_OUT',
    message: message ? message.slice(0, MAX_DESCRIPTION) : 'the request timed out in the Daraja queue',
    providerCode: code ? canonicalDarajaCode(code) : 'QUEUE_TIMEOUT',
  };
}

/**
 * The receipt the reversal is about: OriginalTransactionID on a success; on a failure or a timeout only
 * what the partner put in the request's Occasion (echoed in ReferenceData) or the echoed TransactionID.
 */
function originalCandidates(...receipts: (string | null | undefined)[]): CorrelationCandidate[] {
  return receipts.flatMap((value) =>
    value
      ? [
          { via: RECEIPT, value },
          { via: 'reference', value },
        ]
      : [],
  );
}

function amountOf(value: string | undefined, currency: string) {
  const decimal = value === undefined ? undefined : toDecimalString(value);
  return decimal === undefined ? undefined : { value: decimal, currency };
}

function referenceItems(result: {
  ReferenceData?: { ReferenceItem?: { Key: string; Value?: unknown }[] } | null;
}): Params {
  return collectParams(result.ReferenceData?.ReferenceItem);
}

/** A result posted to ResultURL: the fact's identity (the request's ids), its code and parameters. */
function parseResult(input: Input, what: string, namespace: string) {
  const { Result } = parse(resultSchema, input.body, what);
  const id = requestId(Result) as string;
  return {
    Result,
    code: canonicalDarajaCode(Result.ResultCode),
    params: collectParams(Result.ResultParameters?.ResultParameter),
    identity: { namespace, id, aliases: otherIds(Result, id) },
  };
}

/**
 * Two results name one balance request and differ (one carries a forged balance: Daraja's callbacks are
 * unsigned, the request's ids are all a forger needs): the request failed to give a balance anyone can
 * trust, and the snapshot takes neither (docs/pull-and-balances.md).
 */
function balanceContradicted(Result: Ids): FactIntent['contradicted'] {
  return {
    event: 'AccountBalanceFailed',
    data: {
      ...ids(Result),
      reason: {
        code: 'CONFLICTING_REPORTS',
        message: 'two results for one balance request disagree',
      },
    },
  };
}

export function parseBalanceResult(input: Input): ParsedCallback {
  const { Result, code, params, identity } = parseResult(input, 'account balance result', BALANCE_FACT);
  const contradicted = balanceContradicted(Result);
  if (code !== '0')
    return facts({
      event: 'AccountBalanceFailed',
      ...identity,
      data: { ...ids(Result), reason: reasonOf(code, Result.ResultDesc, 'balance') },
      contradicted,
    });
  const balance = first(params, 'AccountBalance');
  if (!balance) throw new SchemaValidationError('Daraja account balance result carries no AccountBalance');
  const accounts = parseAccountBalance(balance);
  const completedTime = first(params, 'BOCompletedTime') ?? null;
  return facts({
    event: 'AccountBalanceReported',
    ...identity,
    data: { ...ids(Result), accounts, completedTime },
    // Read back by the poller's balance snapshots (DARAJA_BALANCE_RESULT).
    keep: { accounts, completedTime },
    contradicted,
  });
}

/** Daraja's BOCompletedTime (yyyyMMddHHmmss, East Africa Time) as ISO 8601; undefined when it is not one. */
function completedTimeOf(value: unknown): string | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(String(value ?? ''));
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return new Date(Date.UTC(y, mo - 1, d, h, mi, s) - 3 * 3600_000).toISOString();
}

/**
 * An Account Balance result read back by the balance snapshots (shared/app/provider-records/balance-cycle.ts)
 * from the fact parseBalanceResult kept: every account of the short code, at BOCompletedTime.
 */
export const DARAJA_BALANCE_RESULT: BalanceResultReader = {
  factNamespace: BALANCE_FACT,
  read(fact) {
    const kept = fact.data.kept as { accounts?: unknown; completedTime?: unknown } | undefined;
    if (fact.data.event !== 'AccountBalanceReported' || !Array.isArray(kept?.accounts))
      return { failed: `answered ${String(fact.data.event)}` };
    const balances = (kept.accounts as { name?: unknown; currency?: unknown; current?: unknown }[]).flatMap(
      (a) => {
        const balance = toDecimalString(String(a.current ?? ''));
        return balance === undefined
          ? []
          : [{ balance, currency: String(a.currency ?? ''), subAccount: String(a.name ?? '') }];
      },
    );
    return { balances, at: completedTimeOf(kept.completedTime) ?? fact.createdAt };
  },
};

export function parseReversalResult(input: Input): ParsedCallback {
  const { Result, code, params, identity } = parseResult(input, 'reversal result', REVERSAL_FACT);
  const occasion = first(referenceItems(Result), 'Occasion');
  const original = first(params, 'OriginalTransactionID');
  const named = original ? { receipt: original } : {};
  const said = { providerCode: code, description: Result.ResultDesc?.slice(0, MAX_DESCRIPTION) ?? undefined };
  // A failure code with Daraja's words for a completed request and a reversed receipt: Daraja's older
  // Reversal page printed its success sample so ("ResultCode": 21, "The service request is processed
  // successfully", OriginalTransactionID), and SDKs still carry it (RafaelJohn9/mpesakit,
  // mpesakit/reversal/schemas.py). A ReversalFailed would say the payment stands when the money may be back
  // with the customer; a TransactionReversed would count a reversal on a code that says no. So neither: a
  // ReversalAmbiguous (CONFLICTING_REPORTS) for a person, recorded apart so that Daraja's genuine result for
  // the request still records after it (and, recorded first, makes it stale).
  const contradicted = original && /processed successfully/i.test(Result.ResultDesc ?? '');
  if (code !== '0')
    return facts({
      event: contradicted ? 'ReversalAmbiguous' : 'ReversalFailed',
      ...identity,
      ...(contradicted
        ? {
            namespace: `${REVERSAL_FACT}-contradicted`,
            supersededBy: [identity.id, ...identity.aliases].map((id) => ({ namespace: REVERSAL_FACT, id })),
          }
        : {}),
      said,
      about: originalCandidates(original, occasion),
      ...named,
      data: {
        ...ids(Result),
        originalReceipt: original ?? null,
        reason: contradicted
          ? { code: 'CONFLICTING_REPORTS', message: said.description, providerCode: code }
          : reasonOf(code, Result.ResultDesc, 'reversal'),
      },
    });
  // Daraja's v1 sample has none. The relay sends no reversal of its own (no request id it stored could name
  // the payment), and an Occasion is anyone's words: refused, quarantined, with what a person needs to look.
  if (!original)
    throw new SchemaValidationError(
      `Daraja reversal success names no OriginalTransactionID (which payment?): no reversal recorded; OriginatorConversationID ${Result.OriginatorConversationID ?? '(none)'}, reversal receipt ${Result.TransactionID ?? '(none)'}`.slice(
        0,
        MAX_DESCRIPTION,
      ),
    );
  const amount = amountOf(first(params, 'Amount'), input.account.settings.currency);
  // Daraja names the reversed receipt: nothing else (an Occasion) may point the reversal elsewhere.
  return facts({
    event: 'TransactionReversed',
    ...identity,
    about: originalCandidates(original),
    receipt: original,
    amount: amount ?? null,
    said,
    data: {
      ...ids(Result),
      originalReceipt: original,
      reversalReceipt: Result.TransactionID || null,
      amount: amount ?? null,
      charge: amountOf(first(params, 'Charge'), input.account.settings.currency) ?? null,
      completedTime: first(params, 'TransCompletedTime') ?? null,
    },
  });
}

/**
 * Queue-timeout notices (both shapes, provider notes): the outcome is unknown. The echo of a balance or
 * reversal request carries no id of its own, so its identity is its bytes' digest (a repeated notice is
 * the same fact). A notice arriving after the request's result is stale and publishes nothing.
 */
function parseFactTimeout(input: Input, what: 'balance' | 'reversal'): ParsedCallback {
  const label = `${what === 'balance' ? 'account balance' : what} queue-timeout notice`;
  const result =
    input.body.Result !== null && typeof input.body.Result === 'object'
      ? parse(timeoutResultShapeSchema, input.body, label).Result
      : undefined;
  const echo = result ? undefined : parseLooseEcho(input.body, label, what);
  const known = result ?? echo ?? {};
  const id = requestId(known) ?? `echo-${sha256Hex(JSON.stringify(input.body)).slice(0, 32)}`;
  const reason = timeoutReason(result?.ResultCode, result?.ResultDesc);
  // The result may name the request by either id: a timeout is stale when either is recorded.
  const resultNamespace = what === 'balance' ? BALANCE_FACT : REVERSAL_FACT;
  const superseded = [known.OriginatorConversationID, known.ConversationID]
    .filter((value): value is string => Boolean(value))
    .map((value) => ({ namespace: resultNamespace, id: value }));
  if (what === 'balance')
    return facts({
      event: 'AccountBalanceFailed',
      namespace: BALANCE_TIMEOUT_FACT,
      id,
      aliases: otherIds(known, id),
      supersededBy: superseded,
      data: { ...ids(known), reason },
    });
  // A result-shaped notice's TransactionID is Daraja's id of the timed-out request, not the receipt.
  const original = echo?.TransactionID ?? undefined;
  const occasion = result ? first(referenceItems(result), 'Occasion') : (input.body.Occasion as unknown);
  return facts({
    event: 'ReversalAmbiguous',
    namespace: REVERSAL_TIMEOUT_FACT,
    id,
    aliases: otherIds(known, id),
    supersededBy: superseded,
    about: originalCandidates(original, typeof occasion === 'string' ? occasion : undefined),
    ...(original ? { receipt: original } : {}),
    data: { ...ids(known), originalReceipt: original ?? null, reason },
  });
}

const looseText = z.nullish(z.pipe(z.union([z.string(), z.number()]), z.transform(String)));

/** A balance request carries no id of its own, so its echo may have none (identified by its digest). */
const balanceEchoSchema = z.looseObject({
  OriginatorConversationID: looseText,
  ConversationID: looseText,
  TransactionID: looseText,
  CommandID: z.literal('AccountBalance'),
});

/** The command each route's echo may carry (absent is tolerated: the echo's fields are undocumented). */
const ECHO_COMMAND = { balance: 'AccountBalance', reversal: 'TransactionReversal' } as const;

/** The echoed request: a reversal echo names the receipt in its TransactionID. */
function parseLooseEcho(body: Record<string, unknown>, label: string, what: 'balance' | 'reversal') {
  const command = body.CommandID;
  if (command !== undefined && command !== null && command !== ECHO_COMMAND[what])
    throw new SchemaValidationError(
      `Daraja ${label} echoes CommandID ${JSON.stringify(String(command).slice(0, 40))}, not ${ECHO_COMMAND[what]}: another operation's notice`,
    );
  return what === 'balance' && command === 'AccountBalance'
    ? parse(balanceEchoSchema, body, label)
    : parse(timeoutEchoShapeSchema, body, label);
}

export const parseBalanceTimeout = (input: Input) => parseFactTimeout(input, 'balance');
export const parseReversalTimeout = (input: Input) => parseFactTimeout(input, 'reversal');
