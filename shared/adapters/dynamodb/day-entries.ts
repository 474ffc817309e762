import { keyOfPk } from './transaction-item';
import { transactionPk } from './table';

type ShardReader = (
  day: string,
  shard: number,
  from: string,
  to: string,
) => Promise<{ pk: string; createdAt: string }[]>;

/** One by-day shard as read so far: the creations of [from, to] (inclusive), by account. */
interface Shard {
  from?: string;
  to?: string;
  byAccount: Map<string, Map<string, string>>;
  /** The reads of this shard, one after another (each widens the range the one before left). */
  reading: Promise<void>;
}

/**
 * The by-day index's entries of every account, read once for a run over many accounts (the scheduled
 * close: DynamoRelayStore.accountDayReaderForRun). Each day's shard is read over the range asked and,
 * when a later account asks wider (another time zone's business day, a balance span), over the part not
 * yet read: its reads are the union of the ranges asked, whatever the number of accounts, each entry
 * kept by its account in the one pass that reads it. The keys are written once (at the creation), so
 * the run's later accounts see what a read of their own would, bar a transaction created meanwhile.
 */
export class DayEntries {
  private readonly shards = new Map<string, Shard>();

  constructor(private readonly read: ShardReader) {}

  /** The pks of the account (`prefix`: its transactions' pk prefix) created in the shard in [from, to]. */
  async of(day: string, shard: number, from: string, to: string, prefix: string): Promise<string[]> {
    const id = `${day}#${shard}`;
    const kept = this.shards.get(id) ?? { byAccount: new Map(), reading: Promise.resolve() };
    this.shards.set(id, kept);
    const widen = kept.reading.then(() => this.widen(day, shard, kept, from, to));
    // A failed read fails this call only: the next asks again.
    kept.reading = widen.catch(() => undefined);
    await widen;
    const account = kept.byAccount.get(prefix) ?? new Map<string, string>();
    return [...account].filter(([, at]) => at >= from && at <= to).map(([pk]) => pk);
  }

  private async widen(day: string, shard: number, kept: Shard, from: string, to: string) {
    // The ranges meet at their ends (BETWEEN is inclusive): an entry there is read twice, kept once.
    const missing =
      kept.from === undefined || kept.to === undefined
        ? [[from, to]]
        : [...(from < kept.from ? [[from, kept.from]] : []), ...(to > kept.to ? [[kept.to, to]] : [])];
    for (const [lower, upper] of missing) {
      for (const { pk, createdAt } of await this.read(day, shard, lower!, upper!)) {
        const key = keyOfPk(pk);
        if (!key) continue;
        const prefix = transactionPk({ ...key, reference: '' });
        const account = kept.byAccount.get(prefix) ?? new Map<string, string>();
        kept.byAccount.set(prefix, account.set(pk, createdAt));
      }
      if (kept.from === undefined || lower! < kept.from) kept.from = lower;
      if (kept.to === undefined || upper! > kept.to) kept.to = upper;
    }
  }
}
