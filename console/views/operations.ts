import { api, NotAvailableError } from '../api';
import { sparkline } from '../charts';
import { errorBox, h, isoDay, notAvailable, replace, when } from '../dom';

type Row = Record<string, unknown>;

function cell(value: unknown): Node | string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object') return h('pre', { class: 'json' }, JSON.stringify(value, null, 2));
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value)) return when(value);
  return String(value);
}

/** Rows as a table: the named columns first, then whatever else the endpoint sends. */
function genericTable(
  rows: Row[],
  first: string[],
  testId: string,
  render: Record<string, (r: Row) => Node | string> = {},
) {
  const keys = [
    ...new Set([
      ...first.filter((k) => rows.some((r) => k in r) || k in render),
      ...rows.flatMap((r) => Object.keys(r)),
    ]),
  ];
  return h(
    'table',
    { class: 'grid', 'data-testid': testId },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        keys.map((k) => h('th', {}, k)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((r) =>
        h(
          'tr',
          {},
          keys.map((k) => h('td', {}, render[k] ? render[k](r) : cell(r[k]))),
        ),
      ),
    ),
  );
}

async function load(
  body: HTMLElement,
  what: string,
  path: string,
  query: Record<string, string>,
  draw: (answer: Row) => Array<Node | null>,
) {
  replace(body, h('p', {}, 'Loading…'));
  try {
    replace(body, draw(await api<Row>(path, { query })));
  } catch (error) {
    replace(body, error instanceof NotAvailableError ? notAvailable(what) : errorBox(error));
  }
}

function arrayIn(answer: Row, ...names: string[]): Row[] {
  for (const n of names) if (Array.isArray(answer[n])) return answer[n] as Row[];
  return [];
}

/** Per-account callback health: last callback, callbacks per hour (24 h), silence periods. */
export function healthView(root: HTMLElement): () => void {
  const body = h('div', {});
  replace(root, h('h1', {}, 'Callback health'), body);
  void load(body, 'Callback health', '/v1/callback-health', {}, (answer) => {
    const rows = arrayIn(answer, 'accounts', 'health');
    return [
      answer.countedComplete === false
        ? h('p', { class: 'muted' }, 'Counts are partial (over 20 000 transactions).')
        : null,
      rows.length
        ? h(
            'table',
            { class: 'grid', 'data-testid': 'health-table' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                [
                  'Account',
                  'Last callback',
                  'Transactions per hour (24 h)',
                  'Silence watch',
                  'Silent since',
                ].map((t) => h('th', {}, t)),
              ),
            ),
            h(
              'tbody',
              {},
              rows.map((r) => {
                const hours = (r.transactionsPerHour ?? []) as Array<{ hour: string; count: number }>;
                const total = hours.reduce((sum, x) => sum + x.count, 0);
                return h(
                  'tr',
                  { 'data-testid': 'health-row', class: r.silent ? 'silent' : '' },
                  h('td', {}, `${r.provider}/${r.account}`),
                  h('td', {}, when(r.lastCallbackAt as string | null)),
                  h(
                    'td',
                    {},
                    sparkline(
                      hours.map((x) => x.count),
                      `transactions per hour of ${r.provider}/${r.account}`,
                    ),
                    ` ${total} in 24 h`,
                  ),
                  h(
                    'td',
                    {},
                    r.silenceSeconds ? `alerts after ${r.silenceSeconds} s of silence` : 'not watched',
                  ),
                  h(
                    'td',
                    {},
                    r.silent ? h('strong', { class: 'error' }, when(r.silentSince as string)) : '—',
                  ),
                );
              }),
            ),
          )
        : h('pre', { class: 'json' }, JSON.stringify(answer, null, 2)),
    ];
  });
  return () => undefined;
}

/** Refused callbacks by reason, account and source, with their bodies as stored (redacted). */
export function quarantineView(root: HTMLElement, params: URLSearchParams): () => void {
  const filters = {
    reason: params.get('reason') ?? '',
    account: params.get('account') ?? '',
    source: params.get('source') ?? '',
    from: params.get('from') ?? isoDay(new Date(Date.now() - 6 * 86_400_000)),
    to: params.get('to') ?? isoDay(new Date()),
  };
  const form = h(
    'form',
    { class: 'filters' },
    h('input', { name: 'reason', placeholder: 'reason code', value: filters.reason }),
    h('input', { name: 'account', placeholder: 'account', value: filters.account }),
    h('input', { name: 'source', placeholder: 'source IP', value: filters.source }),
    h('label', {}, 'from ', h('input', { type: 'date', name: 'from', value: filters.from })),
    h('label', {}, 'to ', h('input', { type: 'date', name: 'to', value: filters.to })),
    h('button', { type: 'submit' }, 'Filter'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const data = Object.entries(Object.fromEntries(new FormData(form)) as Record<string, string>).filter(
      ([, v]) => v,
    );
    location.hash = `#/quarantine?${new URLSearchParams(data).toString()}`;
  });
  const body = h('div', {});
  replace(root, h('h1', {}, 'Quarantine: refused callbacks'), form, body);
  const query = {
    ...filters,
    from: `${filters.from}T00:00:00.000Z`,
    to: `${filters.to}T23:59:59.999Z`,
    limit: '100',
  };
  void load(body, 'The quarantine', '/v1/quarantine', query, (answer) => {
    const entries = arrayIn(answer, 'entries');
    const byReason = (answer.byReason ?? {}) as Record<string, number>;
    return [
      h(
        'div',
        { class: 'counts', 'data-testid': 'by-reason' },
        Object.entries(byReason).map(([reason, n]) =>
          h(
            'a',
            { class: 'count', href: `#/quarantine?reason=${encodeURIComponent(reason)}` },
            `${reason} ${n}`,
          ),
        ),
      ),
      entries.length
        ? h(
            'ol',
            { class: 'quarantine', 'data-testid': 'quarantine-list' },
            entries.map((e) =>
              h(
                'li',
                { 'data-testid': 'quarantine-entry' },
                h('strong', {}, String(e.reason ?? '')),
                ` ${when(e.receivedAt as string)} ${e.provider ?? '?'}/${e.account ?? '?'} ${e.method ?? ''} ${e.path ?? e.route ?? ''} → ${e.httpStatus ?? ''} from `,
                h('span', { class: 'mono' }, String(e.sourceIp ?? '?')),
                h('div', {}, String(e.message ?? '')),
                h(
                  'details',
                  {},
                  h(
                    'summary',
                    {},
                    `body (redacted as stored${e.bodyTruncated ? ', cut to 4 KB' : ''}; ${e.bodyBytes ?? '?'} bytes)`,
                  ),
                  h(
                    'pre',
                    { class: 'json' },
                    typeof e.body === 'string' ? e.body : JSON.stringify(e.body, null, 2),
                  ),
                ),
              ),
            ),
          )
        : h('p', { 'data-testid': 'empty' }, 'No refused callbacks in this range.'),
    ];
  });
  return () => undefined;
}

/** One line of what the shop's API said about the badge (its label or name, else its JSON, cut). */
function badgeSummary(badge: unknown): string | null {
  if (!badge || typeof badge !== 'object') return null;
  const b = badge as Row;
  const label = b.label ?? b.name ?? b.title;
  const text = typeof label === 'string' ? label : JSON.stringify(badge);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/** The badge feed per shop (the relay's view of each shop's badges). */
export function badgesView(root: HTMLElement): () => void {
  const body = h('div', {});
  replace(root, h('h1', {}, 'Badge feed'), body);
  void load(body, 'The badge feed', '/v1/badges', {}, (answer) => {
    const shops = arrayIn(answer, 'shops');
    if (!shops.length)
      return [h('p', { 'data-testid': 'no-shops' }, 'No badge shops are configured (badges.shops).')];
    return shops.map((shop) => {
      const badges = (Array.isArray(shop.badges) ? shop.badges : []) as Row[];
      return h(
        'section',
        { 'data-testid': 'shop' },
        h('h2', {}, `Shop ${String(shop.shop ?? '?')}`),
        h(
          'p',
          {},
          shop.read
            ? `last read ${when(shop.lastReadAt as string)} ${shop.lastReadOk ? 'ok' : `failed: ${String(shop.lastError ?? '')}`}` +
                `${shop.consecutiveFailures ? ` (${shop.consecutiveFailures} failures in a row)` : ''}; next read ${when(shop.nextReadAt as string)}`
            : 'not read yet',
        ),
        badges.length
          ? genericTable(
              badges.map(({ badge, ...rest }) => ({ ...rest, badge: badgeSummary(badge) })),
              ['id', 'rev', 'deleted', 'activated', 'expired', 'badge'],
              'badges-table',
            )
          : h('p', { class: 'muted' }, 'No badges.'),
        Array.isArray(shop.refused) && shop.refused.length
          ? [h('h3', {}, 'Refused'), h('pre', { class: 'json' }, JSON.stringify(shop.refused, null, 2))]
          : null,
      );
    });
  });
  return () => undefined;
}
