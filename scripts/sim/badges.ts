/**
 * `npm run sim -- badge <create|update|delete|expire>`: one change on the simulator's badge API (cpbw/v1),
 * then the Badge* event the relay's badge feed turned it into, read from the events file.
 */
import type { EventFeed, FeedEvent } from './events';
import { ScenarioError, type Step } from './core';

export const BADGE_ACTIONS = ['create', 'update', 'delete', 'expire'] as const;
export type BadgeAction = (typeof BADGE_ACTIONS)[number];

export interface BadgeScenarioContext {
  simUrl: string;
  /** The platform's REST root on the simulator (`wp-json` by default). */
  restPrefix: string;
  events: EventFeed;
  timeoutMs: number;
  pollMs: number;
  onStep?(step: Step): void;
  onProgress?(): void;
}

export interface BadgeScenarioResult {
  ok: boolean;
  badgeId: string;
  expected: string;
  event: FeedEvent | undefined;
  steps: Step[];
}

const EXPECTED: Record<BadgeAction, string> = {
  create: 'BadgeCreated',
  update: 'BadgeUpdated',
  delete: 'BadgeDeleted',
  expire: 'BadgeExpired',
};

/** How long from now an `expire` scenario sets `valid_to`: past the feed's next read, so the expiry is timed. */
const EXPIRE_IN_SECONDS = 6;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** ISO 8601 with an offset, as the plugin's docs write `valid_from` / `valid_to`. */
function withOffset(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`;
}

export function isBadgeAction(value: string): value is BadgeAction {
  return (BADGE_ACTIONS as readonly string[]).includes(value);
}

export async function runBadgeScenario(
  ctx: BadgeScenarioContext,
  action: BadgeAction,
  options: { badgeId?: string } = {},
): Promise<BadgeScenarioResult> {
  const base = `${ctx.simUrl.replace(/\/$/, '')}/${ctx.restPrefix}/cpbw/v1/badges`;
  const steps: Step[] = [];
  const call = async (title: string, method: string, url: string, body?: unknown) => {
    let status: number | undefined;
    let parsed: unknown;
    try {
      const response = await fetch(url, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      status = response.status;
      const text = await response.text();
      parsed = text ? JSON.parse(text) : undefined;
    } catch (error) {
      throw new ScenarioError(
        `${method} ${url}: ${(error as Error).message} (is npm start -- --simulator running?)`,
      );
    }
    const record = parsed as { id?: unknown; badge_name?: unknown; message?: unknown } | undefined;
    const step: Step = {
      title,
      method,
      url,
      status,
      note:
        record && typeof record === 'object' && !Array.isArray(record)
          ? `${record.id !== undefined ? `id ${String(record.id)} ` : ''}${record.badge_name ?? record.message ?? ''}`.trim()
          : Array.isArray(parsed)
            ? `${parsed.length} badges`
            : '',
    };
    steps.push(step);
    ctx.onStep?.(step);
    if (status === undefined || status >= 400)
      throw new ScenarioError(`${title}: the badge API answered ${status}: ${JSON.stringify(parsed)}`);
    return parsed;
  };

  const newest = async (): Promise<string> => {
    const list = (await call('list the badges', 'GET', base)) as Array<{ id?: unknown }>;
    const ids = list.map((b) => String(b.id)).filter((id) => /^\d+$/.test(id));
    if (ids.length === 0)
      throw new ScenarioError('the shop has no badge to change: run `npm run sim -- badge create` first');
    return ids.sort((a, b) => Number(b) - Number(a))[0]!;
  };

  const now = new Date();
  let badgeId: string;
  if (action === 'create' || (action === 'expire' && !options.badgeId)) {
    const created = (await call('create a badge', 'POST', base, {
      badge_name: `Flash sale ${now.toISOString().slice(11, 19)}`,
      badge_type: 'image',
      filter: 'all',
      badge_style: '<span class="badge">-20%</span>',
      badge_settings: { display: 'block', 'justify-content': 'center' },
      priority: 1,
      status: 1,
      valid_from: withOffset(new Date(now.getTime() - 60_000)),
      valid_to: withOffset(new Date(now.getTime() + 7 * 86_400_000)),
    })) as { id?: unknown };
    badgeId = String(created.id);
  } else {
    badgeId = options.badgeId ?? (await newest());
  }
  if (action === 'update') {
    await call('update the badge', 'PUT', `${base}/${badgeId}`, {
      badge_name: `Flash sale (updated ${now.toISOString().slice(11, 19)})`,
      priority: 2,
    });
  } else if (action === 'delete') {
    await call('delete the badge', 'DELETE', `${base}/${badgeId}`);
  } else if (action === 'expire') {
    await call('let it expire soon', 'PUT', `${base}/${badgeId}`, {
      valid_to: withOffset(new Date(Date.now() + EXPIRE_IN_SECONDS * 1000)),
    });
  }

  const expected = EXPECTED[action];
  const deadline = Date.now() + ctx.timeoutMs + (action === 'expire' ? EXPIRE_IN_SECONDS * 1000 : 0);
  while (Date.now() < deadline) {
    const event = (await ctx.events.read()).find(
      (e) =>
        e.envelope.metadata.type === expected &&
        String((e.envelope.data as { badgeId?: unknown }).badgeId) === badgeId,
    );
    if (event) return { ok: true, badgeId, expected, event, steps };
    ctx.onProgress?.();
    await sleep(ctx.pollMs);
  }
  return { ok: false, badgeId, expected, event: undefined, steps };
}
