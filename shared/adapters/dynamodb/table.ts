import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * One table, item collections per transaction (see docs/table-design.md):
 *   pk TX#<provider>#<account>#<reference>   sk TX            the transaction (status, history, outbox)
 *   pk TX#<provider>#<account>#<reference>   sk RCPT#<id>     each distinct callback body received
 *   pk QUARANTINE#<yyyy-mm-dd>               sk <time>#<id>   each rejected request
 *   pk AUDIT#<yyyy-mm-dd>                    sk <time>#<id>   each audit log entry (written once, never changed)
 *   pk APPROVAL                              sk <id>          each resolution waiting for (or given) approval
 * The stream (NEW_AND_OLD_IMAGES) is the outbox: items whose write carries `outbox` events get published.
 */
export const TABLE_KEYS = { partitionKey: 'pk', sortKey: 'sk', ttlAttribute: 'expiresAt' } as const;

/**
 * Sparse index of the transactions due for a status check: only non-final transactions carry
 * `dueShard`/`dueAt`, so a poll cycle reads the due items, not the table. Sharded so a busy day's
 * writes spread over partitions; keys only (the claim's UpdateItem returns the whole item).
 */
export const DUE_INDEX = { name: 'due', partitionKey: 'dueShard', sortKey: 'dueAt' } as const;

/** Every transaction by creation day (sharded), for the reconciliation report; keys only, written once. */
export const DAY_INDEX = { name: 'byDay', partitionKey: 'dayShard', sortKey: 'createdAt' } as const;

/**
 * The transactions the by-day index cannot place by account and day time (domain/statement-match.ts
 * dayTimeOf: when the money moved by the record that opened it, its final verdict, or its creation while
 * open): sparse, only a transaction whose account-day key (accountDayKeyTime below) is not its creation,
 * i.e. a verdict reached more than ACCOUNT_DAY_SLACK_SECONDS after the creation or a movement time from the
 * provider's records. Every other transaction's day time is within the slack after its creation, so the
 * `byDay` entry it has anyway places it: a registration, an orphan callback and a first callback within the
 * slack write no entry here (one index write less each); a late verdict puts one (docs/table-design.md#the-
 * account-day-slack). The projection is the one deployed stacks have (CloudFormation cannot change it in
 * place); the reader reads the items and uses only the keys.
 */
export const ACCOUNT_DAY_INDEX = {
  name: 'byAccountDay',
  partitionKey: 'accountDay',
  sortKey: 'dayAt',
  projected: ['status', 'amount', 'providerTransactionId'],
} as const;

/** The account-day index's partition: `<provider>#<account>#<UTC yyyy-mm-dd of the key time>`. */
export const accountDayPartition = (provider: string, account: string, at: string) =>
  `${provider}#${account}#${at.slice(0, 10)}`;

/**
 * How long after its creation a transaction's verdict keeps the account-day key of its creation: longer
 * than a provider's prompt lives (Daraja's STK push about a minute, MoMo's and Airtel's USSD approvals a
 * few) and than the poller's first check (reconcile-schedule.ts firstCheckSeconds, 300 by default), so a
 * first callback and the first check's verdict keep the transaction out of the account-day index. The
 * reader queries this much before its range (a share of 15 min of a day's entries at a close): a longer
 * one would spare only the rare later verdict its entry.
 */
export const ACCOUNT_DAY_SLACK_SECONDS = 900;

/*
 * The slack is one rule with two halves, both here so they cannot drift apart: the writer keys a
 * transaction at most the slack before its day time (accountDayKeyTime; its creation, in the by-day index,
 * or an account-day entry), so the reader of [from, to) starts both key ranges the slack early
 * (accountDayRangeStart) and settles each transaction by its item. Entries written before the index was
 * sparse (every transaction, key = its day time or its creation) obey it too.
 */
const ACCOUNT_DAY_SLACK_MS = ACCOUNT_DAY_SLACK_SECONDS * 1000;

/**
 * The account-day sort key (`dayAt`) of a transaction whose day time is `dayAt`: its creation when that day
 * time is a verdict reached within the slack after it, else the day time itself. A day time taken from the
 * provider's records (`fromProviderRecords`: a statement row's movement time) is never replaced.
 */
export function accountDayKeyTime(dayAt: string, createdAt: string, fromProviderRecords: boolean): string {
  if (fromProviderRecords) return dayAt;
  const lag = Date.parse(dayAt) - Date.parse(createdAt);
  return lag >= 0 && lag <= ACCOUNT_DAY_SLACK_MS ? createdAt : dayAt;
}

/** The first key the reader of [from, to) queries: an entry's key is at most the slack before its day time. */
export const accountDayRangeStart = (from: string): string =>
  new Date(Date.parse(from) - ACCOUNT_DAY_SLACK_MS).toISOString();

/**
 * Whether a transaction keyed `keyTime` has an entry in the account-day index: only when the by-day index
 * (keyed by the creation) cannot place it within the slack.
 */
export const inAccountDayIndex = (keyTime: string, createdAt: string): boolean => keyTime !== createdAt;

export function createTableInput(tableName: string): CreateTableCommandInput {
  const keysOnlyIndex = (index: typeof DUE_INDEX | typeof DAY_INDEX) => ({
    IndexName: index.name,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection: { ProjectionType: 'KEYS_ONLY' as const },
  });
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: TABLE_KEYS.partitionKey, AttributeType: 'S' },
      { AttributeName: TABLE_KEYS.sortKey, AttributeType: 'S' },
      { AttributeName: DUE_INDEX.partitionKey, AttributeType: 'S' },
      { AttributeName: DUE_INDEX.sortKey, AttributeType: 'S' },
      { AttributeName: DAY_INDEX.partitionKey, AttributeType: 'S' },
      { AttributeName: DAY_INDEX.sortKey, AttributeType: 'S' },
      { AttributeName: ACCOUNT_DAY_INDEX.partitionKey, AttributeType: 'S' },
      { AttributeName: ACCOUNT_DAY_INDEX.sortKey, AttributeType: 'S' },
    ],
    GlobalSecondaryIndexes: [
      keysOnlyIndex(DUE_INDEX),
      keysOnlyIndex(DAY_INDEX),
      {
        IndexName: ACCOUNT_DAY_INDEX.name,
        KeySchema: [
          { AttributeName: ACCOUNT_DAY_INDEX.partitionKey, KeyType: 'HASH' as const },
          { AttributeName: ACCOUNT_DAY_INDEX.sortKey, KeyType: 'RANGE' as const },
        ],
        Projection: {
          ProjectionType: 'INCLUDE' as const,
          NonKeyAttributes: [...ACCOUNT_DAY_INDEX.projected],
        },
      },
    ],
    KeySchema: [
      { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
    ],
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
  };
}

export function transactionPk(key: { provider: string; account: string; reference: string }): string {
  return `TX#${key.provider}#${key.account}#${key.reference}`;
}
export const TX_SK = 'TX';
export const RECEIPT_SK_PREFIX = 'RCPT#';
export const QUARANTINE_PK_PREFIX = 'QUARANTINE#';
/** Refused callbacks by the reference they aimed at: `REFUSED#<provider>#<account>#<reference>`, sk `<receivedAt>#<id>`. */
const REFUSED_PK_PREFIX = 'REFUSED#';
export function refusedPk(key: { provider: string; account: string; reference: string }): string {
  return `${REFUSED_PK_PREFIX}${key.provider}#${key.account}#${key.reference}`;
}
/** Console lookups noted at registration: `FIND#<externalId|msisdn>#<value>`, sk `<createdAt>#<transaction pk>`. */
export const LOOKUP_PK_PREFIX = 'FIND#';
/** The provider's own records (docs/table-design.md#statements): a business day's rows, breaks and close. */
export const STATEMENT_DAY_PK_PREFIX = 'STMT#';
export const STATEMENT_BALANCE_PK_PREFIX = 'STMTBAL#';
export const STATEMENT_CLOSED_PK_PREFIX = 'STMTCLOSED#';
/** The audit log by day (docs/roles-and-audit.md#audit-log): conditional puts only, never updated or deleted. */
export const AUDIT_PK_PREFIX = 'AUDIT#';
/** Approval requests, one partition: a handful a day, listed newest first (ids sort by time). */
export const APPROVAL_PK = 'APPROVAL';
