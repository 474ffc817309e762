/**
 * Request validation of the badge API (cpbw/v1). Create needs badge_name, badge_type, filter, badge_style
 * and badge_settings; priority, status, valid_from and valid_to are optional. Update takes any subset of
 * the same fields. Unknown fields are ignored, as WordPress REST does.
 */
import { parseDateInput } from './dates';
import { badgeErrors } from './errors';
import type { ProductItem } from './catalogue';

export type BadgeFilter = 'all' | number | ProductItem[];
export type SettingValue = string | number | boolean;

export interface BadgeInput {
  badge_name?: string;
  badge_type?: string;
  filter?: BadgeFilter;
  badge_style?: string;
  badge_settings?: Record<string, SettingValue>;
  priority?: number;
  status?: number;
  /** Epoch ms. */
  valid_from?: number;
  valid_to?: number;
}

const REQUIRED_ON_CREATE = ['badge_name', 'badge_type', 'filter', 'badge_style', 'badge_settings'] as const;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A product filter item, or the reason it is not one. */
function productItem(v: unknown, index: number): ProductItem | string {
  const where = `filter[${index}]`;
  if (!isObject(v)) return `${where} must be an object {id, name, sku, image}`;
  if (typeof v.id !== 'number' || !Number.isInteger(v.id) || v.id < 1) {
    return `${where}.id must be a positive integer`;
  }
  if (typeof v.name !== 'string' || v.name.trim() === '') return `${where}.name must be a non-empty string`;
  if (typeof v.sku !== 'string') return `${where}.sku must be a string`;
  if (typeof v.image !== 'string' || !isHttpUrl(v.image)) return `${where}.image must be an http(s) URL`;
  return { id: v.id, name: v.name, sku: v.sku, image: v.image };
}

/** `justify-content` → `justify_content`: the documented create example writes hyphens, its responses underscores. */
function settingKey(key: string): string {
  return key.replace(/-/g, '_');
}

/** A create body: the five required fields are there. */
export type BadgeCreateInput = BadgeInput & Required<Pick<BadgeInput, (typeof REQUIRED_ON_CREATE)[number]>>;

export function parseCreateBody(body: unknown, siteOffsetMin: number): BadgeCreateInput {
  return parseBadgeBody(body, false, siteOffsetMin) as BadgeCreateInput;
}

export function parseUpdateBody(body: unknown, siteOffsetMin: number): BadgeInput {
  return parseBadgeBody(body, true, siteOffsetMin);
}

/**
 * Validates a create (`partial` false) or update (`partial` true) body and returns the normalised input.
 * Throws `rest_missing_callback_param` or `rest_invalid_param` (400) with every offending field.
 */
function parseBadgeBody(body: unknown, partial: boolean, siteOffsetMin: number): BadgeInput {
  if (!isObject(body)) {
    throw badgeErrors.invalid({ body: 'the request body must be a JSON object' });
  }
  if (!partial) {
    const missing = REQUIRED_ON_CREATE.filter((k) => body[k] === undefined);
    if (missing.length > 0) throw badgeErrors.missing(missing);
  }
  const out: BadgeInput = {};
  const problems: Record<string, string> = {};
  const has = (k: string) => body[k] !== undefined;

  for (const k of ['badge_name', 'badge_type', 'badge_style'] as const) {
    if (!has(k)) continue;
    const v = body[k];
    if (typeof v !== 'string' || v.trim() === '') problems[k] = `${k} must be a non-empty string`;
    else out[k] = v;
  }

  if (has('filter')) {
    const v = body.filter;
    if (v === 'all') out.filter = 'all';
    else if (typeof v === 'number') {
      if (Number.isInteger(v) && v >= 0) out.filter = v;
      else problems.filter = 'an integer filter must be a non-negative integer';
    } else if (Array.isArray(v)) {
      if (v.length === 0)
        problems.filter = 'an array filter needs at least one product (use "all" for all products)';
      else {
        const items = v.map((item, i) => productItem(item, i));
        const reason = items.find((item): item is string => typeof item === 'string');
        if (reason) problems.filter = reason;
        else out.filter = items as ProductItem[];
      }
    } else {
      problems.filter =
        'filter must be "all", an integer or an array of product items {id, name, sku, image}';
    }
  }

  if (has('badge_settings')) {
    const v = body.badge_settings;
    if (!isObject(v)) problems.badge_settings = 'badge_settings must be an object';
    else {
      const settings: Record<string, SettingValue> = {};
      for (const [rawKey, value] of Object.entries(v)) {
        const key = settingKey(rawKey);
        if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
          problems.badge_settings ??= `badge_settings.${rawKey} must be a string, a number or a boolean`;
          continue;
        }
        if (key in settings && settings[key] !== value) {
          problems.badge_settings ??= `badge_settings has both "${key}" and a hyphenated form with another value`;
          continue;
        }
        settings[key] = value;
      }
      if (!problems.badge_settings) out.badge_settings = settings;
    }
  }

  for (const k of ['priority', 'status'] as const) {
    if (!has(k)) continue;
    const v = body[k];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
      problems[k] = `${k} must be a non-negative integer (a JSON number, not a string)`;
    } else out[k] = v;
  }

  for (const k of ['valid_from', 'valid_to'] as const) {
    if (!has(k)) continue;
    const v = body[k];
    const ms = typeof v === 'string' ? parseDateInput(v, siteOffsetMin) : undefined;
    if (ms === undefined) {
      problems[k] = `${k} must be an ISO 8601 date or date-time, e.g. "2026-11-23T10:00:00+03:00"`;
    } else out[k] = ms;
  }

  if (Object.keys(problems).length > 0) throw badgeErrors.invalid(problems);
  return out;
}
