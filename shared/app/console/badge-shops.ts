import type { RelayConfig } from '../../config/schema';
import { BADGE_PROVIDER } from '../../domain/badges';
import type { ProviderRecordStore } from '../ports';

export interface BadgeShopView {
  shop: string;
  /** Never read yet (no snapshot). */
  read: boolean;
  lastReadAt: string | null;
  lastReadOk: boolean | null;
  lastError: string | null;
  consecutiveFailures: number;
  nextReadAt: string | null;
  /** The badges of the last good read, by id; a deleted one is `deleted: true` with `badge: null`. */
  badges: {
    id: string;
    rev: number;
    deleted: boolean;
    activated: string | null;
    expired: string | null;
    badge: Record<string, unknown> | null;
  }[];
  /** Badges the last good read refused for their id. */
  refused: unknown[];
}

interface StoredEntry {
  id?: unknown;
  rev?: unknown;
  badge?: Record<string, unknown> | null;
  activated?: string | null;
  expired?: string | null;
}

/**
 * GET /v1/badges: the badge feed's state per configured shop (docs/badges.md), one read of each shop's
 * snapshot record, the same record the poller's badge cycle keeps.
 */
export async function badgeShops(deps: {
  config: Pick<RelayConfig, 'badges'>;
  store: ProviderRecordStore;
}): Promise<{ shops: BadgeShopView[] }> {
  const shops = await Promise.all(
    Object.keys(deps.config.badges.shops).map(async (shop): Promise<BadgeShopView> => {
      // badge-feed.ts's snapshotRef, spelled out: importing the feed would bundle it into the management function.
      const record = await deps.store.getRecord({
        provider: BADGE_PROVIDER,
        account: shop,
        namespace: 'snapshot',
        id: 'current',
      });
      const data = record?.data ?? {};
      // Version 2 keeps a list of entries, version 1 an object keyed by id.
      const raw = data.badges;
      const entries: StoredEntry[] = Array.isArray(raw)
        ? (raw as StoredEntry[])
        : raw && typeof raw === 'object'
          ? Object.entries(raw as Record<string, StoredEntry>).map(([id, e]) => ({ ...e, id }))
          : [];
      const text = (value: unknown) => (typeof value === 'string' ? value : null);
      return {
        shop,
        read: record !== undefined,
        lastReadAt: text(data.lastReadAt),
        lastReadOk: typeof data.lastReadOk === 'boolean' ? data.lastReadOk : null,
        lastError: text(data.lastError),
        consecutiveFailures: Number(data.consecutiveFailures ?? 0) || 0,
        nextReadAt: text(data.nextReadAt),
        badges: entries
          .filter((e) => typeof e?.id === 'string')
          .map((e) => ({
            id: e.id as string,
            rev: Number(e.rev ?? 0),
            deleted: e.badge === null,
            activated: e.activated ?? null,
            expired: e.expired ?? null,
            badge: e.badge ?? null,
          })),
        refused: Array.isArray(data.refused) ? data.refused : [],
      };
    }),
  );
  return { shops };
}
