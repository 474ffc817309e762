import { api, type ApprovalView, type ApprovalsAnswer, type AuditPage } from '../api';
import { currentToken } from '../auth';
import { errorBox, h, replace, when } from '../dom';
import { whoAmI } from '../me';
import { exportButton } from '../export';

const who = (a: { name: string; role: string } | null) => (a ? `${a.name} (${a.role})` : 'nobody signed in');

/** The states a request can be in, as GET /v1/approvals?state= filters them. */
const APPROVAL_STATES = ['pending', 'approved', 'rejected', 'failed', 'expired'] as const;

/**
 * The resolutions above an account's limit (docs/roles-and-audit.md#four-eyes); admins decide them. The
 * list filters by state and exports as CSV with the same filter.
 */
export function approvalsView(root: HTMLElement, params: URLSearchParams): () => void {
  const state = params.get('state') ?? '';
  const filters = h(
    'form',
    { class: 'filters', 'data-testid': 'approval-filters' },
    h(
      'select',
      { name: 'state', 'aria-label': 'state' },
      h('option', { value: '' }, 'any state'),
      APPROVAL_STATES.map((s) => h('option', { value: s, selected: s === state }, s)),
    ),
    ' ',
    h('button', { type: 'submit' }, 'Filter'),
    ' ',
    exportButton('approvals-csv', '/v1/approvals', () => ({ state })),
  );
  filters.addEventListener('submit', (e) => {
    e.preventDefault();
    const chosen = String(new FormData(filters).get('state') ?? '');
    location.hash = chosen ? `#/approvals?${new URLSearchParams({ state: chosen })}` : '#/approvals';
  });
  const out = h('div', { 'data-testid': 'approvals' });
  replace(root, h('h1', {}, 'Approvals'), filters, out);
  const load = async () => {
    let answer: ApprovalsAnswer;
    let administer = false;
    try {
      [answer, administer] = await Promise.all([
        api<ApprovalsAnswer>('/v1/approvals', { query: { state } }),
        whoAmI(currentToken()).then((me) => me.can.administer),
      ]);
    } catch (error) {
      replace(out, errorBox(error));
      return;
    }
    const list: ApprovalView[] = answer.approvals;
    if (!list.length) {
      replace(
        out,
        h(
          'p',
          { 'data-testid': 'no-approvals' },
          state ? `No request is ${state}.` : 'No resolution waits for approval.',
        ),
      );
      return;
    }
    replace(
      out,
      h(
        'table',
        { class: 'grid', 'data-testid': 'approvals-table' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['asked', 'transaction', 'resolution', 'amount', 'by', 'state', ''].map((t) => h('th', {}, t)),
          ),
        ),
        h(
          'tbody',
          {},
          ...list.map((a) => {
            const result = h('span', {});
            const decide = (verb: 'approve' | 'reject') => {
              const button = h(
                'button',
                { class: verb === 'reject' ? 'secondary' : '', 'data-testid': `approval-${verb}` },
                verb === 'approve' ? 'Approve' : 'Reject',
              );
              button.addEventListener('click', async () => {
                button.disabled = true;
                try {
                  await api(`/v1/approvals/${encodeURIComponent(a.id)}/${verb}`, {
                    method: 'POST',
                    body: {},
                  });
                  await load();
                } catch (error) {
                  replace(result, errorBox(error));
                  button.disabled = false;
                }
              });
              return button;
            };
            const txHref = `#/tx/${[a.provider, a.account, a.reference].map(encodeURIComponent).join('/')}`;
            return h(
              'tr',
              { 'data-testid': 'approval-row' },
              h('td', {}, when(a.createdAt)),
              h(
                'td',
                {},
                h('a', { href: txHref, class: 'mono' }, `${a.provider}/${a.account}/${a.reference}`),
              ),
              h('td', {}, `${a.status}: ${a.note}`),
              h('td', {}, `${a.amount ?? 'unknown'} ${a.currency ?? ''} (limit ${a.limit})`),
              h('td', { 'data-testid': 'approval-requester' }, who(a.requestedBy)),
              h(
                'td',
                { 'data-testid': 'approval-state' },
                a.state,
                a.decidedBy ? ` by ${who(a.decidedBy)}` : '',
                a.decisionNote ? `: ${a.decisionNote}` : '',
              ),
              h(
                'td',
                {},
                // Only admins decide; the API refuses the others and the requester's own anyway.
                a.state === 'pending' && administer ? [decide('approve'), ' ', decide('reject')] : null,
                result,
              ),
            );
          }),
        ),
      ),
      answer.complete
        ? null
        : h('p', { class: 'muted' }, 'Only the newest requests were read: older ones are not listed.'),
    );
  };
  void load();
  return () => undefined;
}

/** The audit log (admins): every action and refused call, with a CSV export of the same filters. */
export function auditView(root: HTMLElement, params: URLSearchParams): () => void {
  const filters = h(
    'form',
    { class: 'filters', 'data-testid': 'audit-filters' },
    ...(['actor', 'action', 'outcome', 'target'] as const).map((name) =>
      h(
        'label',
        {},
        `${name} `,
        h('input', { name, value: params.get(name) ?? '', size: 16, 'aria-label': `audit ${name}` }),
        ' ',
      ),
    ),
    h('button', { type: 'submit' }, 'Filter'),
    ' ',
    exportButton('audit-csv', '/v1/audit', () => query()),
  );
  const out = h('div', {});
  replace(root, h('h1', {}, 'Audit log'), filters, out);
  const query = () => {
    const q: Record<string, string> = {};
    for (const [k, v] of new FormData(filters as HTMLFormElement).entries()) if (String(v)) q[k] = String(v);
    return q;
  };
  filters.addEventListener('submit', (e) => {
    e.preventDefault();
    location.hash = `#/audit?${new URLSearchParams(query())}`;
  });
  void (async () => {
    try {
      const page = await api<AuditPage>('/v1/audit', { query: Object.fromEntries(params) });
      replace(
        out,
        page.entries.length
          ? h(
              'table',
              { class: 'grid', 'data-testid': 'audit-table' },
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  ...['at', 'who', 'action', 'target', 'outcome', 'detail'].map((t) => h('th', {}, t)),
                ),
              ),
              h(
                'tbody',
                {},
                ...page.entries.map((e) =>
                  h(
                    'tr',
                    { 'data-testid': 'audit-row' },
                    h('td', {}, when(e.at)),
                    h('td', {}, who(e.actor)),
                    h('td', {}, e.action),
                    h('td', { class: 'mono' }, e.target ?? '—'),
                    h('td', {}, `${e.outcome} (${e.httpStatus})`),
                    h('td', {}, e.detail ?? ''),
                  ),
                ),
              ),
            )
          : h('p', { 'data-testid': 'no-audit' }, 'No entries in this range.'),
        page.next ? h('p', { class: 'muted' }, 'More entries are older: narrow the filters.') : null,
      );
    } catch (error) {
      replace(out, errorBox(error));
    }
  })();
  return () => undefined;
}
