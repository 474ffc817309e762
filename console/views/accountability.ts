import { api, apiUrl, authHeaders, type ApprovalView, type ApprovalsAnswer, type AuditPage } from '../api';
import { currentToken } from '../auth';
import { errorBox, h, replace, when } from '../dom';
import { whoAmI } from '../me';

const who = (a: { name: string; role: string } | null) => (a ? `${a.name} (${a.role})` : 'nobody signed in');

/** The resolutions above an account's limit (docs/roles-and-audit.md#four-eyes); admins decide them. */
export function approvalsView(root: HTMLElement): () => void {
  const out = h('div', { 'data-testid': 'approvals' });
  replace(root, h('h1', {}, 'Approvals'), out);
  const load = async () => {
    let list: ApprovalView[];
    let administer = false;
    try {
      [list, administer] = await Promise.all([
        api<ApprovalsAnswer>('/v1/approvals').then((a) => a.approvals),
        whoAmI(currentToken()).then((me) => me.can.administer),
      ]);
    } catch (error) {
      replace(out, errorBox(error));
      return;
    }
    if (!list.length) {
      replace(out, h('p', { 'data-testid': 'no-approvals' }, 'No resolution waits for approval.'));
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
    h('button', { type: 'button', class: 'secondary', 'data-testid': 'audit-csv' }, 'Export CSV'),
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
  filters.querySelector('[data-testid=audit-csv]')!.addEventListener('click', async () => {
    // Fetched with the sign-in header (a link could not carry it), then saved from memory.
    const response = await fetch(apiUrl('/v1/audit', { ...query(), format: 'csv' }), {
      headers: authHeaders(),
    });
    const url = URL.createObjectURL(await response.blob());
    const a = h('a', { href: url, download: 'relay-audit.csv' });
    a.click();
    URL.revokeObjectURL(url);
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
