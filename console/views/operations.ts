import { api, NotAvailableError, type QuarantinePage, type QuarantineView } from '../api';
import { sparkline } from '../charts';
import { append, errorBox, h, isoDay, notAvailable, replace, when } from '../dom';
import { currentToken } from '../auth';
import { whoAmI } from '../me';
import { exportButton } from '../export';

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

/**
 * Per-account callback health: last callback, callbacks per hour (24 h), silence periods; filtered by
 * provider and account, and exported as CSV with the same filters.
 */
export function healthView(root: HTMLElement, params: URLSearchParams): () => void {
  const filters = { provider: params.get('provider') ?? '', account: params.get('account') ?? '' };
  const form = h(
    'form',
    { class: 'filters', 'data-testid': 'health-filters' },
    h('input', {
      name: 'provider',
      placeholder: 'provider',
      value: filters.provider,
      size: 10,
      'aria-label': 'provider',
    }),
    h('input', {
      name: 'account',
      placeholder: 'account',
      value: filters.account,
      size: 10,
      'aria-label': 'account',
    }),
    h('button', { type: 'submit' }, 'Filter'),
    ' ',
    exportButton('health-csv', '/v1/callback-health', () => filters),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const data = Object.entries(Object.fromEntries(new FormData(form)) as Record<string, string>).filter(
      ([, v]) => v,
    );
    location.hash = `#/health?${new URLSearchParams(data).toString()}`;
  });
  const body = h('div', {});
  replace(root, h('h1', {}, 'Callback health'), form, body);
  void load(body, 'Callback health', '/v1/callback-health', filters, (answer) => {
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

/** Entries the quarantine view asks for at once, and requests it makes by itself to fill them. */
const QUARANTINE_PAGE = 100;
const QUARANTINE_REQUESTS_PER_LOAD = 10;

function quarantineEntry(e: QuarantineView): HTMLElement {
  return h(
    'li',
    { 'data-testid': 'quarantine-entry' },
    h('strong', {}, e.reason),
    ` ${when(e.receivedAt)} ${e.provider ?? '?'}/${e.account ?? '?'} ${e.method} ${e.path || e.route || ''} → ${e.httpStatus} from `,
    h('span', { class: 'mono' }, e.sourceIp),
    h('div', {}, e.message),
    h(
      'details',
      {},
      h(
        'summary',
        {},
        `body (redacted as stored${e.bodyTruncated ? ', cut to 4 KB' : ''}; ${e.bodyBytes} bytes)`,
      ),
      h('pre', { class: 'json' }, e.body),
    ),
    decisionView(e),
  );
}

/**
 * The decision on a refused provider callback (docs/roles-and-audit.md#quarantine-decisions): who took it,
 * or, for an operator, Accept and Dismiss with a required note. Viewers see no buttons (the API answers
 * them 403 anyway).
 */
function decisionView(e: QuarantineView): HTMLElement {
  const slot = h('div', { class: 'decision', 'data-testid': 'quarantine-decision' });
  const decided = (d: NonNullable<QuarantineView['decision']>) =>
    replace(
      slot,
      h(
        'p',
        { role: 'status' },
        `${d.kind === 'accepted' ? 'Accepted' : 'Dismissed'} by ${d.by.name} (${d.by.role}) at ${when(d.at)}: ${d.note}` +
          (d.applied ? ` — ${d.applied.reference} now ${d.applied.status}` : ''),
      ),
    );
  if (e.decision) {
    decided(e.decision);
    return slot;
  }
  if (!e.provider || !e.account) return slot;
  void whoAmI(currentToken())
    .then((me) => {
      if (!me.can.operate) return;
      const note = h('input', { name: 'note', placeholder: 'why (required)', size: 30, 'aria-label': 'Why' });
      const out = h('div', { role: 'alert' });
      const act = (what: 'accept' | 'dismiss') => async () => {
        try {
          const answer = await api<{ decision: NonNullable<QuarantineView['decision']> }>(
            `/v1/quarantine/${encodeURIComponent(e.id)}/${what}`,
            { method: 'POST', body: { receivedAt: e.receivedAt, note: note.value } },
          );
          decided(answer.decision);
        } catch (error) {
          replace(out, errorBox(error));
        }
      };
      replace(
        slot,
        note,
        ' ',
        h('button', { 'data-testid': 'quarantine-accept', onclick: act('accept') }, 'Accept'),
        ' ',
        h(
          'button',
          { class: 'secondary', 'data-testid': 'quarantine-dismiss', onclick: act('dismiss') },
          'Dismiss',
        ),
        out,
      );
    })
    .catch(() => undefined);
  return slot;
}

/**
 * Refused callbacks by reason, account and source, with their bodies as stored (redacted). The API reads
 * a bounded number of entries per request, so a filter's matches beneath a flood come pages later: the
 * view follows `next` by itself until it has a page of entries (or has made QUARANTINE_REQUESTS_PER_LOAD
 * requests), says how much of the range it searched, and offers "Load more" while anything is left.
 */
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
    ' ',
    // The list as CSV with the filters shown (without the bodies): GET /v1/quarantine?format=csv.
    exportButton('quarantine-csv', '/v1/quarantine', () => ({
      ...filters,
      from: `${filters.from}T00:00:00.000Z`,
      to: `${filters.to}T23:59:59.999Z`,
    })),
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
    limit: String(QUARANTINE_PAGE),
  };
  const counts = h('div', { class: 'counts', 'data-testid': 'by-reason' });
  const list = h('ol', { class: 'quarantine', 'data-testid': 'quarantine-list' });
  const progress = h('p', { class: 'muted', 'data-testid': 'quarantine-progress' });
  const more = h('button', { class: 'more', type: 'button', 'data-testid': 'quarantine-more' }, 'Load more');
  const empty = h('p', { 'data-testid': 'empty' }, 'No refused callbacks in this range.');
  let left = false;
  let next: string | null | undefined; // undefined: nothing asked yet
  let searched = 0;
  let inRange: string | null = null;
  let shown = 0;

  const showProgress = (loading: boolean) => {
    const of = inRange === null ? '' : ` of ${inRange}`;
    const end = next === null ? ': the whole range' : loading ? '…' : '; more remain';
    progress.textContent = `Searched ${searched}${of} entries${end}, ${shown} shown.`;
    more.hidden = loading || next === null;
    if (next === null && shown === 0) list.replaceWith(empty);
  };

  const loadMore = async () => {
    more.hidden = true;
    const before = shown;
    try {
      for (let asked = 0; asked < QUARANTINE_REQUESTS_PER_LOAD && next !== null; asked++) {
        showProgress(true);
        const answer = await api<QuarantinePage>('/v1/quarantine', {
          query: { ...query, cursor: next },
        });
        if (left) return;
        if (answer.byReason) {
          replace(
            counts,
            Object.entries(answer.byReason).map(([reason, n]) =>
              h(
                'a',
                { class: 'count', href: `#/quarantine?reason=${encodeURIComponent(reason)}` },
                `${reason} ${n}`,
              ),
            ),
          );
          inRange = `${answer.inRange}${answer.byReasonComplete ? '' : '+'}`;
        }
        append(list, answer.entries.map(quarantineEntry));
        shown += answer.entries.length;
        searched += answer.examined;
        next = answer.next;
        if (shown - before >= QUARANTINE_PAGE) break;
      }
      showProgress(false);
    } catch (error) {
      if (left) return;
      replace(body, error instanceof NotAvailableError ? notAvailable('The quarantine') : errorBox(error));
    }
  };
  more.addEventListener('click', () => void loadMore());
  replace(body, counts, list, progress, more);
  void loadMore();
  return () => {
    left = true;
  };
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
  replace(
    root,
    h('h1', {}, 'Badge feed'),
    h(
      'p',
      { class: 'filters' },
      exportButton('badges-csv', '/v1/badges', () => ({})),
    ),
    body,
  );
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
