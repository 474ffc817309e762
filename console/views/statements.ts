import {
  api,
  type StatementDayAnswer as DailyCloseReport,
  type StatementDaysAnswer as DaysAnswer,
} from '../api';
import { errorBox, h, replace, when } from '../dom';
import { exportButton } from '../export';

const rate = (r: { rate: number | null }) => (r.rate === null ? '—' : `${(r.rate * 100).toFixed(1)} %`);

const age = (seconds: number) =>
  seconds >= 86_400
    ? `${Math.floor(seconds / 86_400)} d`
    : seconds >= 3600
      ? `${Math.floor(seconds / 3600)} h`
      : `${Math.floor(seconds / 60)} min`;

const segment = (s: string) => encodeURIComponent(s);

/**
 * The daily close (docs/console.md#statements): an account's business days with their match rate and
 * breaks; a day's breaks to act on, oldest first, each with its story (what was expected, what the
 * provider's records show, where) and a link to its transaction; the day as CSV.
 */
export function statementsView(root: HTMLElement, params: URLSearchParams): () => void {
  const chosen = params.get('account') ?? '';
  const day = params.get('day') ?? '';
  const form = h(
    'form',
    { class: 'filters', 'data-testid': 'statements-account' },
    h(
      'label',
      {},
      'account ',
      h('input', {
        name: 'account',
        value: chosen,
        placeholder: 'provider/account',
        size: 24,
        'aria-label': 'statement account',
        required: true,
      }),
    ),
    ' ',
    h('button', { type: 'submit' }, 'Show days'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const account = String(new FormData(form as HTMLFormElement).get('account') ?? '').trim();
    location.hash = `#/statements?${new URLSearchParams({ account })}`;
  });
  const daysOut = h('div', { 'data-testid': 'statement-days' });
  const dayOut = h('div', { 'data-testid': 'statement-day' });
  replace(root, h('h1', {}, 'Statements: the daily close'), form, daysOut, dayOut);
  const [provider, account] = chosen.split('/');
  if (!provider || !account) {
    replace(
      daysOut,
      h('p', { class: 'muted' }, 'Name an account (provider/account) to see its business days.'),
    );
    return () => undefined;
  }
  const base = `/v1/statements/${segment(provider)}/${segment(account)}/days`;
  void (async () => {
    try {
      const answer = await api<DaysAnswer>(base);
      replace(
        daysOut,
        daysTable(answer, chosen, day),
        exportButton('days-csv', base, () => ({})),
      );
    } catch (error) {
      replace(daysOut, errorBox(error));
    }
  })();
  if (day)
    void (async () => {
      try {
        const report = await api<DailyCloseReport>(`${base}/${segment(day)}`);
        replace(dayOut, dayDetail(report, `${base}/${segment(day)}`));
      } catch (error) {
        replace(dayOut, errorBox(error));
      }
    })();
  return () => undefined;
}

function daysTable(answer: DaysAnswer, chosen: string, selected: string): HTMLElement {
  return h(
    'table',
    { class: 'grid', 'data-testid': 'days-table' },
    h(
      'caption',
      { class: 'muted' },
      `Business days of ${answer.provider}/${answer.account} (${answer.timeZone}), newest first`,
    ),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['day', 'state', 'payments', 'matched', 'fees', 'late', 'breaks', 'match rate'].map((t) =>
          h('th', {}, t),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      ...answer.days.map((d) =>
        h(
          'tr',
          { 'data-testid': 'day-row', class: d.day === selected ? 'selected' : '' },
          h(
            'td',
            {},
            h('a', { href: `#/statements?${new URLSearchParams({ account: chosen, day: d.day })}` }, d.day),
          ),
          h('td', {}, d.state === 'closed' ? `closed ${when(d.closedAt)}` : 'open'),
          h('td', {}, String(d.payments)),
          h('td', {}, String(d.matched)),
          h('td', {}, String(d.fees)),
          h('td', {}, String(d.lateResolutions)),
          h('td', { class: d.breaks ? 'warn' : '' }, String(d.breaks)),
          h('td', {}, rate(d.matchRate)),
        ),
      ),
    ),
  );
}

function dayDetail(report: DailyCloseReport, path: string): HTMLElement {
  const csv = exportButton('day-csv', path, () => ({}));
  const verdicts = Object.entries(report.verdicts)
    .map(([status, v]) => `${status} ${v.count} (${v.amount})`)
    .join(', ');
  return h(
    'section',
    {},
    h('h2', {}, `${report.provider}/${report.account} ${report.day}`),
    h(
      'p',
      { 'data-testid': 'day-summary' },
      `${report.state === 'closed' ? `Closed ${when(report.closedAt)} (${report.closedBecause})` : 'Open'} · match rate ${rate(report.matchRate)} (${report.matchRate.matched} of ${report.matchRate.toMatch}) · payments ${report.rows.payments}, matched ${report.rows.matched}, fees ${report.rows.fees.count} (${report.rows.fees.amount}) · late resolutions ${report.lateResolutions} · verdicts ${verdicts || 'none'} · sources ${report.sources.join(', ') || 'none'}`,
      ' ',
      csv,
    ),
    report.breaks.length
      ? h(
          'table',
          { class: 'grid', 'data-testid': 'breaks-table' },
          h('caption', { class: 'muted' }, 'Breaks to act on, oldest first'),
          h(
            'thead',
            {},
            h('tr', {}, ...['category', 'age', 'amount', 'transaction', 'story'].map((t) => h('th', {}, t))),
          ),
          h(
            'tbody',
            {},
            ...report.breaks.map((b) =>
              h(
                'tr',
                { 'data-testid': 'break-row' },
                h('td', { class: 'mono' }, b.category),
                h('td', {}, age(b.ageSeconds)),
                h('td', {}, b.amount ?? '—'),
                h(
                  'td',
                  {},
                  b.reference
                    ? h(
                        'a',
                        {
                          class: 'mono',
                          href: `#/tx/${[report.provider, report.account, b.reference].map(segment).join('/')}`,
                        },
                        b.reference,
                      )
                    : h('span', { class: 'mono' }, b.providerId ?? '—'),
                ),
                h(
                  'td',
                  {},
                  b.detail,
                  b.expected || b.actual
                    ? h('div', { class: 'muted' }, `expected ${b.expected ?? '—'}, seen ${b.actual ?? '—'}`)
                    : null,
                  b.origin
                    ? h(
                        'div',
                        { class: 'muted' },
                        `seen in ${b.origin.ref}${b.origin.row ? ` line ${b.origin.row}` : ''}`,
                      )
                    : null,
                  b.resolution
                    ? h('div', { class: 'muted' }, `the relay ${b.resolution} the transaction`)
                    : null,
                ),
              ),
            ),
          ),
        )
      : h('p', { 'data-testid': 'no-breaks' }, 'No break on this day.'),
  );
}
