import type { StatementRow } from '../../domain/statement';
import { type MatchKey, matchKeys } from '../../domain/statement-match';
import type { TransactionKey, TransactionRecord } from '../../domain/transaction';
import { inParallel } from '../../util/in-parallel';
import { idProblem } from '../../util/text';
import type { RelayStore } from '../ports';
import { statementsOf } from '../../providers/registry';
import { ALIAS_NAMESPACE_PREFIX } from '../transactions/ingest-report';

type Owner = Pick<StatementRow, 'provider' | 'account' | 'providerId' | 'externalId'>;

/** Lookup-entry queries of one batch in flight at once (a query each: they cannot be batched). */
const LOOKUPS_IN_FLIGHT = 8;

const txId = (key: TransactionKey) => `${key.provider}#${key.account}#${key.reference}`;
type Account = Pick<Owner, 'provider' | 'account'>;
const aliasId = (owner: Account, namespace: string, value: string) =>
  `${owner.provider}#${owner.account}#${namespace}#${value}`;
const lookupId = (owner: Account, value: string) => `${owner.provider}#${owner.account}#${value}`;

/** The keys worth asking (an id no key could hold is skipped, as a single read would refuse it). */
const keysOf = (owner: Owner, id: string): MatchKey[] =>
  matchKeys(owner, statementsOf(owner.provider).matchKeys, id).filter((key) => !idProblem('', key.value));

/**
 * The transaction each row of a batch belongs to, by the keys its provider declares, in their order
 * (its `statements.ts`; domain/statement-match.ts matchKeys), read for the whole batch at once: a round
 * per key position, each one BatchGetItem for the aliases and one for the transactions (the lookup
 * entries a query each, a few at a time), and only for the rows an earlier key did not find; then `find` answers each row from what
 * was read, exactly as one row at a time would. What a row's placement writes (a transaction opened or
 * settled, an alias recorded) is `forget`-ed, so a later row of the batch reads it live.
 */
export class TransactionFinder {
  /** Reference → the transaction, or null: read and absent. */
  private readonly transactions = new Map<string, TransactionRecord | null>();
  /** Alias → the reference it names, or null: absent, ambiguous or naming nothing. */
  private readonly aliases = new Map<string, string | null>();
  /** ExternalId → the references of its lookup entries (this account's), newest first. */
  private readonly lookups = new Map<string, TransactionKey[]>();

  constructor(private readonly store: RelayStore) {}

  /** Reads, for every (row, id), the keys needed to find its transaction: bounded requests per round. */
  async prefetch(wanted: readonly { owner: Owner; id: string }[]): Promise<void> {
    let pending = wanted.filter((w) => keysOf(w.owner, w.id).length > 0);
    for (let position = 0; pending.length > 0; position++) {
      const round = pending.flatMap((w) => {
        const key = keysOf(w.owner, w.id)[position];
        return key ? [{ ...w, key }] : [];
      });
      if (round.length === 0) break;
      await this.readAliases(round);
      await this.readLookups(round);
      const references: TransactionKey[] = [];
      for (const { owner, key } of round) references.push(...this.referencesOf(owner, key));
      await this.readTransactions(references);
      pending = round
        .filter(({ owner, key }) => !this.cachedHit(owner, key))
        .map(({ owner, id }) => ({ owner, id }));
    }
  }

  /** The row's transaction by id (its own, or the payment a fee or reversal row names). */
  async find(owner: Owner, id: string): Promise<TransactionRecord | undefined> {
    for (const key of keysOf(owner, id)) {
      if (key.via === 'alias') await this.readAliases([{ owner, key }]);
      if (key.via === 'externalId') await this.readLookups([{ owner, key }]);
      const references = this.referencesOf(owner, key);
      await this.readTransactions(references);
      for (const reference of references) {
        const tx = this.transactions.get(txId(reference));
        if (tx) return tx;
      }
    }
    return undefined;
  }

  /** A write changed what these ids find (a transaction opened or settled, an alias recorded). */
  forget(owner: Owner, values: readonly (string | undefined)[]): void {
    for (const value of values) {
      if (!value) continue;
      this.transactions.delete(txId({ provider: owner.provider, account: owner.account, reference: value }));
      this.lookups.delete(lookupId(owner, value));
      for (const id of [...this.aliases.keys()])
        if (id.startsWith(`${owner.provider}#${owner.account}#`) && id.endsWith(`#${value}`))
          this.aliases.delete(id);
    }
  }

  private referencesOf(owner: Owner, key: MatchKey): TransactionKey[] {
    const { provider, account } = owner;
    if (key.via === 'reference') return [{ provider, account, reference: key.value }];
    if (key.via === 'alias') {
      const reference = this.aliases.get(aliasId(owner, key.namespace, key.value));
      return reference ? [{ provider, account, reference }] : [];
    }
    return this.lookups.get(lookupId(owner, key.value)) ?? [];
  }

  private cachedHit(owner: Owner, key: MatchKey): boolean {
    return this.referencesOf(owner, key).some((reference) => this.transactions.get(txId(reference)));
  }

  private async readAliases(round: readonly { owner: Owner; key: MatchKey }[]): Promise<void> {
    const refs = round.flatMap(({ owner, key }) =>
      key.via === 'alias' && !this.aliases.has(aliasId(owner, key.namespace, key.value))
        ? [
            {
              provider: owner.provider,
              account: owner.account,
              namespace: `${ALIAS_NAMESPACE_PREFIX}${key.namespace}`,
              id: key.value,
              alias: aliasId(owner, key.namespace, key.value),
            },
          ]
        : [],
    );
    if (refs.length === 0) return;
    for (const ref of refs) this.aliases.set(ref.alias, null);
    for (const record of await this.store.getRecords(refs)) {
      const reference = record.data.reference;
      if (typeof reference !== 'string' || record.data.ambiguous === true) continue;
      const namespace = record.namespace.slice(ALIAS_NAMESPACE_PREFIX.length);
      this.aliases.set(aliasId(record, namespace, record.id), reference);
    }
  }

  private async readLookups(round: readonly { owner: Owner; key: MatchKey }[]): Promise<void> {
    const asks = [
      ...new Map(
        round.flatMap(({ owner, key }) =>
          key.via === 'externalId' && !this.lookups.has(lookupId(owner, key.value))
            ? [[lookupId(owner, key.value), { owner, value: key.value }] as const]
            : [],
        ),
      ).values(),
    ];
    await inParallel(asks, LOOKUPS_IN_FLIGHT, async ({ owner, value }) => {
      const entries = await this.store.findLookups('externalId', value, 5);
      this.lookups.set(
        lookupId(owner, value),
        entries
          .filter((e) => e.key.provider === owner.provider && e.key.account === owner.account)
          .map((e) => e.key),
      );
    });
  }

  private async readTransactions(keys: readonly TransactionKey[]): Promise<void> {
    const unread = [
      ...new Map(keys.filter((k) => !this.transactions.has(txId(k))).map((k) => [txId(k), k])).values(),
    ];
    if (unread.length === 0) return;
    for (const key of unread) this.transactions.set(txId(key), null);
    for (const tx of await this.store.getTransactions(unread)) this.transactions.set(txId(tx.key), tx);
  }
}
