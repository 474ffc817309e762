/** In-memory badges of the badge plugin's REST API (`cpbw/v1`), with deterministic demo badges and string ids of increasing integers. */
import { PRODUCT_CATALOGUE, type ProductItem } from './catalogue';
import { isoWithOffset, parseDateInput, siteDateTime, wholeSeconds } from './dates';
import type { BadgeCreateInput, BadgeFilter, BadgeInput, SettingValue } from './validation';

export interface StoredBadge {
  id: number;
  badge_name: string;
  badge_type: string;
  filter: BadgeFilter;
  badge_style: string;
  badge_settings: Record<string, SettingValue>;
  priority: number;
  status: number;
  created_by: string;
  /** Epoch ms, whole seconds. */
  validFrom: number;
  validTo: number;
  createdAt: number;
  updatedAt: number;
}

/** The plugin's Badge as it goes on the wire. */
export interface Badge {
  id: string;
  badge_name: string;
  badge_type: string;
  filter: BadgeFilter;
  badge_style: string;
  badge_settings: Record<string, SettingValue>;
  priority: string;
  status: string;
  created_by: string;
  valid_from: string;
  valid_to: string;
  created_at: string;
  updated_at: string;
  _links: { self: { href: string }[]; collection: { href: string }[] };
}

/** When a create gives no `valid_to`: one year after `valid_from`. */
const DEFAULT_VALIDITY_MS = 365 * 24 * 3600_000;
const DEFAULT_PRIORITY = 0;
const DEFAULT_STATUS = 1;

const product = (id: number): ProductItem => ({ ...PRODUCT_CATALOGUE.find((p) => p.id === id)! });

/** The demo badges present at start and after a reset: one of each filter shape. Fixed dates, site time. */
function demoBadges(offsetMin: number): StoredBadge[] {
  const at = (text: string) => parseDateInput(text, offsetMin)!;
  return [
    {
      id: 1,
      badge_name: 'New arrival',
      badge_type: 'image',
      filter: 'all',
      badge_style: '<span class="cpbw-badge cpbw-badge--new">New</span>',
      badge_settings: { display: 'block', justify_content: 'flex-start' },
      priority: 1,
      status: 1,
      created_by: 'admin',
      validFrom: at('2026-01-01T00:00:00'),
      validTo: at('2030-12-31T23:59:59'),
      createdAt: at('2026-01-05 09:00:00'),
      updatedAt: at('2026-01-05 09:00:00'),
    },
    {
      id: 2,
      badge_name: 'Flash sale -20%',
      badge_type: 'image',
      filter: [product(101), product(102)],
      badge_style: '<span class="cpbw-badge cpbw-badge--sale">-20%</span>',
      badge_settings: { display: 'flex', justify_content: 'center' },
      priority: 2,
      status: 1,
      created_by: 'admin',
      validFrom: at('2026-02-01T08:00:00'),
      validTo: at('2030-06-30T23:59:59'),
      createdAt: at('2026-01-20 14:30:00'),
      updatedAt: at('2026-01-22 10:15:00'),
    },
    {
      id: 3,
      badge_name: 'Coffee of the month',
      badge_type: 'text',
      filter: 105,
      badge_style: '<span class="cpbw-badge cpbw-badge--featured">Featured</span>',
      badge_settings: { display: 'inline-block', justify_content: 'flex-end' },
      priority: 0,
      status: 0,
      created_by: 'admin',
      validFrom: at('2026-03-01T00:00:00'),
      validTo: at('2030-03-31T23:59:59'),
      createdAt: at('2026-02-25 16:45:10'),
      updatedAt: at('2026-02-25 16:45:10'),
    },
  ];
}

export class BadgeStore {
  private badges = new Map<number, StoredBadge>();
  private nextId = 1;

  constructor(
    private readonly offsetMin: number,
    private readonly withDemo: boolean,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.reset();
  }

  reset(): void {
    this.badges.clear();
    const seeded = this.withDemo ? demoBadges(this.offsetMin) : [];
    for (const b of seeded) this.badges.set(b.id, b);
    this.nextId = seeded.reduce((max, b) => Math.max(max, b.id), 0) + 1;
  }

  list(): StoredBadge[] {
    return [...this.badges.values()].sort((a, b) => a.id - b.id);
  }

  /** Ids are strings of digits; anything else (or an unknown id) is not found. */
  get(id: string): StoredBadge | undefined {
    return /^\d{1,15}$/.test(id) ? this.badges.get(Number(id)) : undefined;
  }

  create(input: BadgeCreateInput, createdBy: string): StoredBadge {
    const now = wholeSeconds(this.now());
    const validFrom = input.valid_from ?? now;
    const badge: StoredBadge = {
      id: this.nextId++,
      badge_name: input.badge_name,
      badge_type: input.badge_type,
      filter: input.filter,
      badge_style: input.badge_style,
      badge_settings: input.badge_settings,
      priority: input.priority ?? DEFAULT_PRIORITY,
      status: input.status ?? DEFAULT_STATUS,
      created_by: createdBy,
      validFrom,
      validTo: input.valid_to ?? validFrom + DEFAULT_VALIDITY_MS,
      createdAt: now,
      updatedAt: now,
    };
    this.badges.set(badge.id, badge);
    return badge;
  }

  /** The caller checked the validity period of the result (`checkPeriod`). */
  update(badge: StoredBadge, input: BadgeInput): StoredBadge {
    if (input.badge_name !== undefined) badge.badge_name = input.badge_name;
    if (input.badge_type !== undefined) badge.badge_type = input.badge_type;
    if (input.filter !== undefined) badge.filter = input.filter;
    if (input.badge_style !== undefined) badge.badge_style = input.badge_style;
    if (input.badge_settings !== undefined) badge.badge_settings = input.badge_settings;
    if (input.priority !== undefined) badge.priority = input.priority;
    if (input.status !== undefined) badge.status = input.status;
    if (input.valid_from !== undefined) badge.validFrom = input.valid_from;
    if (input.valid_to !== undefined) badge.validTo = input.valid_to;
    badge.updatedAt = wholeSeconds(this.now());
    return badge;
  }

  delete(badge: StoredBadge): void {
    this.badges.delete(badge.id);
  }

  /** Admin hook: `valid_to` becomes now + `inSeconds` (`valid_from` follows if it was later). */
  expire(badge: StoredBadge, inSeconds: number): StoredBadge {
    badge.validTo = wholeSeconds(this.now()) + inSeconds * 1000;
    if (badge.validFrom > badge.validTo) badge.validFrom = badge.validTo;
    return badge;
  }

  render(badge: StoredBadge, collectionUrl: string): Badge {
    const o = this.offsetMin;
    return {
      id: String(badge.id),
      badge_name: badge.badge_name,
      badge_type: badge.badge_type,
      filter: Array.isArray(badge.filter) ? badge.filter.map((p) => ({ ...p })) : badge.filter,
      badge_style: badge.badge_style,
      badge_settings: { ...badge.badge_settings },
      priority: String(badge.priority),
      status: String(badge.status),
      created_by: badge.created_by,
      valid_from: isoWithOffset(badge.validFrom, o),
      valid_to: isoWithOffset(badge.validTo, o),
      created_at: siteDateTime(badge.createdAt, o),
      updated_at: siteDateTime(badge.updatedAt, o),
      _links: {
        self: [{ href: `${collectionUrl}/${badge.id}` }],
        collection: [{ href: collectionUrl }],
      },
    };
  }
}
