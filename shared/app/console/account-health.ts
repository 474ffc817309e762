import type { RelayConfig } from '../../config/schema';
import {
  CALLBACK_HEALTH_NAMESPACE,
  callbackSilenceSeconds,
  LAST_CALLBACK_ID,
  STATE_ID,
} from '../callbacks/callback-health';
import type { Clock, ConsoleStore, CreatedEntry, ProviderRecordStore } from '../ports';
import { parseText } from './console-query';

/** Index entries one answer counts at most (a day of a very busy relay is counted in part). */
const MAX_COUNTED = 20_000;

export interface AccountHealth {
  provider: string;
  account: string;
  /** When the relay last noted a callback of the account (noted at most once a minute), or null. */
  lastCallbackAt: string | null;
  /** No callback for this long while a transaction waits makes the account silent; 0: not watched. */
  silenceSeconds: number;
  /** The poller judged the account silent (a CallbackSilence episode is open). */
  silent: boolean;
  silentSince: string | null;
  /** Transactions created per hour over the last 24 hours, oldest hour first (the `byDay` index). */
  transactionsPerHour: { hour: string; count: number }[];
}

/**
 * GET /v1/callback-health: each configured account's callback health as the poller's callback-health
 * cycle keeps it (docs/reconciliation.md#callback-health), two small records per account, and its
 * transactions per hour of the last 24 hours from the `byDay` index (keys only, no item read). Callbacks
 * themselves are not counted per hour: the relay notes only the latest.
 */
export async function callbackHealthView(
  deps: {
    config: RelayConfig;
    store: ProviderRecordStore & ConsoleStore;
    clock: Clock;
  },
  query: Record<string, string | undefined> = {},
): Promise<{ at: string; accounts: AccountHealth[]; countedComplete: boolean }> {
  const provider = parseText(query.provider, 'provider', 40);
  const account = parseText(query.account, 'account', 64);
  const now = deps.clock.now();
  const hours = Array.from({ length: 24 }, (_, i) =>
    new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000 - (23 - i) * 3_600_000).toISOString(),
  );
  const range = { from: hours[0]!, to: now.toISOString() };
  const perAccount = new Map<string, Map<string, number>>();
  let counted = 0;
  let before: CreatedEntry | undefined;
  let more = true;
  while (more && counted < MAX_COUNTED) {
    const page = await deps.store.listCreatedPage(range, { limit: 1000, ...(before ? { before } : {}) });
    for (const entry of page.entries) {
      const id = `${entry.key.provider}/${entry.key.account}`;
      const byHour = perAccount.get(id) ?? new Map<string, number>();
      const hour = `${entry.createdAt.slice(0, 13)}:00:00.000Z`;
      byHour.set(hour, (byHour.get(hour) ?? 0) + 1);
      perAccount.set(id, byHour);
    }
    counted += page.entries.length;
    before = page.entries.at(-1);
    more = page.more;
  }
  const accounts = await Promise.all(
    [...deps.config.accounts.values()]
      .filter((a) => (!provider || a.provider === provider) && (!account || a.id === account))
      .map(async (a): Promise<AccountHealth> => {
        const ref = (id: string) => ({
          provider: a.provider,
          account: a.id,
          namespace: CALLBACK_HEALTH_NAMESPACE,
          id,
        });
        const [last, state] = await Promise.all([
          deps.store.getRecord(ref(LAST_CALLBACK_ID)),
          deps.store.getRecord(ref(STATE_ID)),
        ]);
        const episode = state?.data.episode as { silentSince?: string } | null | undefined;
        const byHour = perAccount.get(`${a.provider}/${a.id}`);
        return {
          provider: a.provider,
          account: a.id,
          lastCallbackAt: (last?.data.lastCallbackAt as string | undefined) ?? null,
          silenceSeconds: callbackSilenceSeconds(deps.config.reconciliation, a.provider, a.id),
          silent: !!episode,
          silentSince: episode?.silentSince ?? null,
          transactionsPerHour: hours.map((hour) => ({ hour, count: byHour?.get(hour) ?? 0 })),
        };
      }),
  );
  return { at: now.toISOString(), accounts, countedComplete: !more };
}
