import {
  api,
  type StatementDayAnswer as DailyCloseReport,
  type StatementDaysAnswer as DaysAnswer,
} from '../api';
import { currentToken } from '../auth';
import { errorBox, h, replace, when } from '../dom';
import { exportButton } from '../export';
import { whoAmI } from '../me';

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
 * provider's records show, where) and a link to its transaction; the breaks a person's close retired (who,
 * when, why); the day as CSV. An operator closes the day here, as themself: reading it retires nothing.
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
  if (day) {
    const path = `${base}/${segment(day)}`;
    const show = (report: DailyCloseReport, operate: boolean) =>
      replace(
        dayOut,
        dayDetail(report, path, operate ? closeButton(path, (closed) => show(closed, operate)) : null),
      );
    void (async () => {
      try {
        const [report, me] = await Promise.all([api<DailyCloseReport>(path), whoAmI(currentToken())]);
        show(report, me.can.operate);
      } catch (error) {
        replace(dayOut, errorBox(error));
      }
    })();
  }
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

/**
 * Closes the day as the signed-in operator (POST …/close): the one act that retires the breaks that no
 * longer hold, recorded with their name. Shows the day as the close answers it.
 */
function closeButton(path: string, shown: (report: DailyCloseReport) => void): HTMLElement {
  const button = h(
    'button',
    { class: 'secondary', 'data-testid': 'close-day' },
    'Close the day',
  ) as HTMLButtonElement;
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      shown(await api<DailyCloseReport>(`${path}/close`, { method: 'POST' }));
    } catch (error) {
      button.replaceWith(errorBox(error));
    }
  });
  return button;
}

/** The breaks a person's close retired: the audit of what earlier readings showed. */
function retiredTable(report: DailyCloseReport): HTMLElement | null {
  if (!report.retired.length) return null;
  return h(
    'table',
    { class: 'grid', 'data-testid': 'retired-table' },
    h('caption', { class: 'muted' }, 'Retired breaks: no longer holding, retired by a close'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['category', 'amount', 'transaction', 'found', 'retired', 'by', 'why'].map((t) => h('th', {}, t)),
      ),
    ),
    h(
      'tbody',
      {},
      ...report.retired.map((b) =>
        h(
          'tr',
          { 'data-testid': 'retired-row' },
          h('td', { class: 'mono' }, b.category),
          h('td', {}, b.amount ?? '—'),
          h('td', { class: 'mono' }, b.reference ?? b.providerId ?? '—'),
          h('td', {}, when(b.detectedAt)),
          h('td', { 'data-testid': 'retired-at' }, when(b.retiredAt)),
          h(
            'td',
            { 'data-testid': 'retired-by' },
            b.retiredBy.kind === 'person' ? b.retiredBy.name : `${b.retiredBy.name} (system)`,
          ),
          h('td', { 'data-testid': 'retired-because' }, b.because, h('div', { class: 'muted' }, b.detail)),
        ),
      ),
    ),
  );
}

function dayDetail(report: DailyCloseReport, path: string, close: HTMLElement | null): HTMLElement {
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
      close ? ' ' : null,
      close,
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
                  b.noLongerHolds
                    ? h(
                        'div',
                        { class: 'warn', 'data-testid': 'no-longer-holds' },
                        `no longer holds: ${b.noLongerHolds} (a close by a person retires it)`,
                      )
                    : null,
                ),
              ),
            ),
          ),
        )
      : h('p', { 'data-testid': 'no-breaks' }, 'No break on this day.'),
    retiredTable(report),
  );
}
