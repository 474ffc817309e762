import {
  api,
  apiUrl,
  authHeaders,
  type CountsAnswer,
  NotAvailableError,
  relayFetch,
  type SearchAnswer,
  type TransactionPage,
  type TransactionSummary,
} from '../api';
import { errorBox, h, isoDay, notAvailable, replace, statusPill, when } from '../dom';
import { exportButton } from '../export';
// The values the API's status filter accepts, from the one list the server checks against.
import { STATUS_FILTERS } from '../../shared/app/management-answers';
import { currentToken } from '../auth';
import { whoAmI } from '../me';
import { COUNTS_REFRESH_MS, followStream, type LiveState, type StreamFollower } from '../live';
import { backoffMs } from '../connection';
import { EVENT_STREAM_STALE_MS } from '../../shared/app/management-answers';

const LIVE_TEXT: Record<LiveState, string> = {
  connecting: '○ connecting…',
  live: '● live',
  polling: '● every 5 s',
  offline: '○ not live: reconnecting',
};
const POLL_MS = 5000;

export function storyHash(
  t: TransactionSummary | { provider: string; account: string; reference: string },
): string {
  return `#/tx/${[t.provider, t.account, t.reference].map(encodeURIComponent).join('/')}`;
}

/** A row's identity: references are unique per provider account only (another account may reuse one). */
const rowKey = (t: TransactionSummary) => `${t.provider}/${t.account}/${t.reference}`;

/** "reversed" (full) or "partly reversed", with what went back and what is left. */
function reversalPill(t: TransactionSummary): HTMLElement | null {
  const r = t.reversal;
  if (!r) return null;
  const currency = t.currency ? ` ${t.currency}` : '';
  const title = `${r.amountReversed ?? 'an unknown amount'}${currency} went back${r.netAmount !== null ? `, ${r.netAmount}${currency} left` : ''}`;
  return h(
    'span',
    { class: `pill s-reversed r-${r.state}`, title, 'data-testid': 'reversal' },
    r.state === 'full' ? 'reversed' : 'partly reversed',
  );
}

function row(t: TransactionSummary): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-testid': 'tx-row', 'data-reference': t.reference, 'data-key': rowKey(t) },
    h('td', {}, h('a', { href: storyHash(t), class: 'mono' }, t.reference)),
    h('td', {}, `${t.provider}/${t.account}`),
    h('td', {}, t.kind),
    h(
      'td',
      {},
      statusPill(t.status),
      reversalPill(t),
      t.reason ? h('small', { title: t.reason.message ?? '' }, ` ${t.reason.code}`) : null,
    ),
    h('td', { class: 'num' }, t.amount ? `${t.amount} ${t.currency ?? ''}` : '—'),
    h('td', { class: 'mono' }, t.msisdnMasked ?? '—'),
    h('td', {}, t.externalId ?? '—'),
    h('td', { class: 'mono' }, t.providerTransactionId ?? '—'),
    h('td', {}, when(t.updatedAt, `${t.provider}/${t.account}`)),
  );
}

function table(rows: TransactionSummary[]): HTMLTableElement {
  return h(
    'table',
    { class: 'grid', 'data-testid': 'tx-table' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        [
          'Reference',
          'Account',
          'Kind',
          'Status',
          'Amount',
          'MSISDN',
          'External id',
          'Receipt',
          'Updated',
        ].map((title) => h('th', {}, title)),
      ),
    ),
    h('tbody', {}, rows.map(row)),
  );
}

function select(name: string, options: readonly string[], value: string): HTMLSelectElement {
  return h(
    'select',
    { name, 'aria-label': name },
    h('option', { value: '' }, `any ${name}`),
    options.map((o) => h('option', { value: o, selected: o === value }, o)),
  );
}

/** The list with its filters, counts by status, search, and new transactions as they come. */
export function transactionsView(root: HTMLElement, params: URLSearchParams): () => void {
  const today = new Date();
  const weekAgo = new Date(today.getTime() - 6 * 86_400_000);
  const filters = {
    provider: params.get('provider') ?? '',
    account: params.get('account') ?? '',
    kind: params.get('kind') ?? '',
    status: params.get('status') ?? '',
    from: params.get('from') ?? isoDay(weekAgo),
    to: params.get('to') ?? isoDay(today),
  };
  const q = params.get('q') ?? '';

  // The providers come from the relay's registry (GET /v1/me), so a new provider needs no console change.
  const providerSelect = select('provider', filters.provider ? [filters.provider] : [], filters.provider);
  void whoAmI(currentToken()).then(
    (me) => {
      const more = me.providers.map((p) => p.id).filter((id) => id !== filters.provider);
      providerSelect.append(...more.map((id) => h('option', { value: id }, id)));
    },
    () => undefined,
  );

  const form = h(
    'form',
    { class: 'filters', 'data-testid': 'filters' },
    providerSelect,
    h('input', { name: 'account', placeholder: 'account', value: filters.account, size: 10 }),
    h('input', { name: 'kind', placeholder: 'kind', value: filters.kind, size: 10 }),
    select('status', STATUS_FILTERS, filters.status),
    h('label', {}, 'from ', h('input', { type: 'date', name: 'from', value: filters.from })),
    h('label', {}, 'to ', h('input', { type: 'date', name: 'to', value: filters.to })),
    h('button', { type: 'submit' }, 'Filter'),
    ' ',
    exportButton('tx-csv', '/v1/transactions', () => ({ ...filters, to: `${filters.to}T23:59:59.999Z` })),
  );
  const searchForm = h(
    'form',
    { class: 'search', role: 'search' },
    h('input', {
      name: 'q',
      type: 'search',
      value: q,
      placeholder: 'reference, externalId, provider receipt or MSISDN',
      'aria-label': 'search',
      size: 48,
    }),
    h('button', { type: 'submit' }, 'Search'),
  );
  const counts = h('div', { class: 'counts', 'data-testid': 'counts' });
  const live = h('span', { class: 'live', 'data-testid': 'live', role: 'status' });
  /** Green "live" only while the stream is open and speaking; what else is true otherwise. */
  const showLive = (state: LiveState) => {
    live.dataset.state = state;
    live.textContent = LIVE_TEXT[state];
  };
  const results = h('div', { 'data-testid': 'results' });
  replace(root, h('h1', {}, 'Transactions ', live), searchForm, form, counts, results);

  const go = (next: Record<string, string>) => {
    const p = new URLSearchParams(Object.entries(next).filter(([, v]) => v !== ''));
    location.hash = `#/transactions?${p.toString()}`;
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    go(Object.fromEntries(new FormData(form)) as Record<string, string>);
  });
  searchForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = String(new FormData(searchForm).get('q') ?? '').trim();
    go(text ? { q: text } : {});
  });

  let stopped = false;
  const shown = new Map<string, TransactionSummary>();
  const keyOf = rowKey;
  const range = { from: filters.from, to: `${filters.to}T23:59:59.999Z` };

  const loadCounts = async () => {
    try {
      const answer = await api<CountsAnswer>('/v1/transactions/counts', {
        query: { ...range, provider: filters.provider, account: filters.account },
      });
      // A range larger than one request counts: the newest part, marked as a lower bound.
      const atLeast = answer.complete === false ? '≥ ' : '';
      replace(
        counts,
        h('span', { class: 'count total' }, `total ${atLeast}${answer.total}`),
        Object.entries(answer.counts).map(([status, n]) =>
          h(
            'a',
            { class: 'count', href: `#/transactions?status=${status}`, 'data-status': status },
            statusPill(status),
            ` ${atLeast}${n}`,
          ),
        ),
        // Counted under SUCCEEDED too (their status): the payments some of whose money went back.
        h(
          'a',
          {
            class: 'count',
            href: '#/transactions?status=REVERSED',
            'data-status': 'REVERSED',
            title: `of the SUCCEEDED: ${answer.reversed.full} fully, ${answer.reversed.partial} partly reversed`,
          },
          statusPill('REVERSED'),
          ` ${answer.reversed.full + answer.reversed.partial}`,
        ),
      );
    } catch (error) {
      replace(
        counts,
        error instanceof NotAvailableError ? notAvailable('Counts by status') : errorBox(error),
      );
    }
  };

  let countsTimer: ReturnType<typeof setTimeout> | undefined;
  let countsAt = 0;
  /** After live changes: one counts refresh per COUNTS_REFRESH_MS at most, at the end of the interval. */
  const refreshCounts = () => {
    if (countsTimer || stopped) return;
    countsTimer = setTimeout(
      () => {
        countsTimer = undefined;
        countsAt = Date.now();
        if (!stopped) void loadCounts();
      },
      Math.max(0, countsAt + COUNTS_REFRESH_MS - Date.now()),
    );
  };

  const renderRows = (page: TransactionPage, more: HTMLElement | null, append: boolean) => {
    for (const t of page.transactions) shown.set(keyOf(t), t);
    const tbl = results.querySelector('tbody');
    if (append && tbl) for (const t of page.transactions) tbl.appendChild(row(t));
    else
      replace(
        results,
        page.transactions.length
          ? table(page.transactions)
          : h('p', { 'data-testid': 'empty' }, 'No transactions.'),
      );
    if (more) results.appendChild(more);
  };

  const loadPage = async (cursor?: string) => {
    const page = await api<TransactionPage>('/v1/transactions', {
      query: { ...filters, from: range.from, to: range.to, limit: 50, cursor },
    });
    const more = page.next
      ? h('button', { class: 'more', onclick: () => void loadPage(page.next ?? undefined) }, 'Load more')
      : null;
    results.querySelector('button.more')?.remove();
    renderRows(page, more, cursor !== undefined);
  };

  const addLive = (t: TransactionSummary) => {
    if (filters.status && (filters.status === 'REVERSED' ? !t.reversal : t.status !== filters.status)) return;
    if (filters.provider && t.provider !== filters.provider) return;
    if (filters.account && t.account !== filters.account) return;
    const tbody = results.querySelector('tbody');
    const existing = results.querySelector(`tr[data-key="${CSS.escape(rowKey(t))}"]`);
    const fresh = row(t);
    fresh.classList.add('fresh');
    if (existing) existing.replaceWith(fresh);
    else if (tbody) tbody.prepend(fresh);
    else replace(results, table([t]));
    shown.set(keyOf(t), t);
  };

  /** New and changed transactions without a reload: the local server's event stream, else a 5 s poll. */
  const follow = () => {
    follower = followStream({
      open: (headers, signal) =>
        relayFetch(apiUrl('/v1/events/stream'), { headers: { ...authHeaders(), ...headers }, signal }),
      onChange: (parsed) => {
        const data = parsed as { transaction?: TransactionSummary } & TransactionSummary;
        const t = data.transaction ?? data;
        if (t.reference) {
          addLive(t);
          refreshCounts();
        }
      },
      onState: showLive,
      onPoll: poll,
      backoffMs,
      staleMs: EVENT_STREAM_STALE_MS,
    });
  };
  let follower: StreamFollower | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const poll = () => {
    showLive('polling');
    let since = new Date().toISOString();
    const tick = async () => {
      if (stopped) return;
      try {
        const asked = new Date().toISOString();
        const page = await api<TransactionPage>('/v1/transactions', {
          query: { ...filters, from: range.from, to: range.to, since, limit: 200 },
        });
        since = asked;
        let changed = false;
        for (const t of page.transactions.slice().reverse()) {
          const before = shown.get(keyOf(t));
          if (!before || before.updatedAt !== t.updatedAt || before.status !== t.status) {
            addLive(t);
            changed = true;
          }
        }
        if (changed) refreshCounts();
        showLive('polling');
      } catch {
        // The next tick tries again; until then the list says it is not current.
        showLive('offline');
      }
      if (!stopped) timer = setTimeout(() => void tick(), POLL_MS);
    };
    timer = setTimeout(() => void tick(), POLL_MS);
  };

  if (q) {
    void (async () => {
      try {
        const answer = await api<SearchAnswer>('/v1/transactions/search', { query: { q, limit: 50 } });
        replace(
          results,
          h(
            'p',
            { 'data-testid': 'matched-by' },
            answer.transactions.length
              ? `${answer.transactions.length} found by ${answer.matchedBy ?? 'search'} for “${q}”`
              : `Nothing matches “${q}”.`,
          ),
          answer.transactions.length ? table(answer.transactions) : null,
          // The matches as CSV: the same search (GET /v1/transactions/search?format=csv).
          answer.transactions.length
            ? exportButton('search-csv', '/v1/transactions/search', () => ({ q, limit: 50 }))
            : null,
        );
      } catch (error) {
        replace(results, error instanceof NotAvailableError ? notAvailable('Search') : errorBox(error));
      }
    })();
    void loadCounts();
  } else {
    void loadCounts();
    void loadPage()
      .then(() => {
        if (!stopped) follow();
      })
      .catch((error) =>
        replace(
          results,
          error instanceof NotAvailableError ? notAvailable('The transaction list') : errorBox(error),
        ),
      );
  }
  return () => {
    stopped = true;
    follower?.stop();
    if (timer) clearTimeout(timer);
    if (countsTimer) clearTimeout(countsTimer);
  };
}
