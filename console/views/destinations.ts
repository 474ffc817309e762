import {
  api,
  type DestinationDeliveriesAnswer,
  type DestinationsAnswer,
  type DestinationView,
  type ReplayAnswer,
} from '../api';
import { currentToken } from '../auth';
import { errorBox, h, replace, statusPill, when } from '../dom';
import { whoAmI } from '../me';
import { exportButton } from '../export';

const path = (id: string, verb: string) => `/v1/destinations/${encodeURIComponent(id)}/${verb}`;

/**
 * An attempt's answer as shown: its HTTP status; without one, an SQS queue that took the message
 * ("queued", an sqs destination's delivered attempt) or no answer at all (refused address, time-out, TLS).
 */
export function attemptAnswer(attempt: { status: number | null; outcome: string }): string {
  if (attempt.status !== null) return String(attempt.status);
  return attempt.outcome === 'delivered' ? 'queued' : 'no answer';
}

/**
 * Webhook destinations (docs/console.md#destinations): their state, the delivery log, and the operator's
 * pause, resume and replay (a dry-run count first) and the admin's secret rotation; the buttons a role
 * cannot use are not shown (the API refuses them anyway, 403 FORBIDDEN_ROLE).
 */
export function destinationsView(root: HTMLElement): () => void {
  const out = h('div', { 'data-testid': 'destinations' });
  const detail = h('div', { 'data-testid': 'destination-detail' });
  replace(
    root,
    h('h1', {}, 'Destinations'),
    h(
      'p',
      { class: 'filters' },
      exportButton('destinations-csv', '/v1/destinations', () => ({})),
    ),
    out,
    detail,
  );
  const load = async () => {
    let list: DestinationView[];
    let can = { operate: false, administer: false };
    try {
      [list, can] = await Promise.all([
        api<DestinationsAnswer>('/v1/destinations').then((a) => a.destinations),
        whoAmI(currentToken()).then((me) => me.can),
      ]);
    } catch (error) {
      replace(out, errorBox(error));
      return;
    }
    if (!list.length) {
      replace(out, h('p', { 'data-testid': 'no-destinations' }, 'No destination in the relay config.'));
      return;
    }
    const action = (d: DestinationView, verb: 'pause' | 'resume') => {
      const button = h(
        'button',
        { class: 'secondary', 'data-testid': `destination-${verb}` },
        verb === 'pause' ? 'Pause' : 'Resume',
      );
      button.addEventListener('click', async () => {
        button.disabled = true;
        try {
          await api(path(d.id, verb), { method: 'POST' });
          await load();
        } catch (error) {
          button.replaceWith(errorBox(error));
        }
      });
      return button;
    };
    const open = (d: DestinationView) =>
      h('button', { class: 'secondary', onclick: () => void showDetail(d, can) }, 'Log and replay');
    replace(
      out,
      h(
        'table',
        { class: 'grid', 'data-testid': 'destinations-table' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['destination', 'filter', 'state', 'failures', 'last attempt', 'signing', ''].map((t) =>
              h('th', {}, t),
            ),
          ),
        ),
        h(
          'tbody',
          {},
          ...list.map((d) =>
            h(
              'tr',
              { 'data-testid': 'destination-row', 'data-destination': d.id },
              // The type beside the name, the target under it: an https URL and an SQS queue ARN look alike at a glance.
              h(
                'td',
                {},
                h('strong', {}, d.id),
                ' ',
                h('span', { class: 'muted', 'data-testid': 'destination-type' }, d.type),
                h('br', {}),
                h('span', { class: 'mono muted', 'data-testid': 'destination-target' }, d.url),
                // The partner's role the relay assumes (sqs): what their trust policy must name.
                d.role
                  ? h(
                      'span',
                      {},
                      h('br', {}),
                      'as ',
                      h('span', { class: 'mono muted', 'data-testid': 'destination-role' }, d.role),
                    )
                  : null,
              ),
              h('td', {}, d.filter.eventTypes.join(', ') || 'every event'),
              h(
                'td',
                { 'data-testid': 'destination-state' },
                statusPill(d.state),
                d.state === 'paused' ? ` by ${d.pausedBy} ${when(d.pausedAt)}` : '',
                d.state === 'disabled' ? ` ${d.disabledReason} ${when(d.disabledAt)}` : '',
              ),
              h('td', {}, String(d.failureStreak)),
              h(
                'td',
                {},
                d.lastAttempt
                  ? `${when(d.lastAttempt.at)} ${attemptAnswer(d.lastAttempt)} ${d.lastAttempt.outcome}`
                  : '—',
              ),
              h(
                'td',
                {},
                d.rotation
                  ? `rotated by ${d.rotation.rotatedBy}${d.rotation.bothSigning ? `; both sign until ${when(d.rotation.windowEndsAt)}` : ''}`
                  : 'config secret',
              ),
              h(
                'td',
                {},
                can.operate ? action(d, d.state === 'active' ? 'pause' : 'resume') : null,
                ' ',
                open(d),
              ),
            ),
          ),
        ),
      ),
    );
  };

  async function showDetail(d: DestinationView, can: { operate: boolean; administer: boolean }) {
    const log = h('div', {});
    replace(
      detail,
      h('h2', {}, `${d.id}: delivery log`),
      // The log's default range (the last day), as CSV: every attempt of it, not only the 50 shown.
      h(
        'p',
        {},
        exportButton('deliveries-csv', path(d.id, 'deliveries'), () => ({})),
      ),
      log,
      can.operate ? replayForm(d) : null,
      can.administer ? rotateForm(d) : null,
    );
    try {
      const page = await api<DestinationDeliveriesAnswer>(path(d.id, 'deliveries'), { query: { limit: 50 } });
      replace(
        log,
        page.attempts.length
          ? h(
              'table',
              { class: 'grid', 'data-testid': 'deliveries-table' },
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  ...['at', 'webhook-id', 'attempt', 'status', 'latency', 'outcome', 'answer'].map((t) =>
                    h('th', {}, t),
                  ),
                ),
              ),
              h(
                'tbody',
                {},
                ...page.attempts.map((a) =>
                  h(
                    'tr',
                    {},
                    h('td', {}, when(a.at)),
                    h('td', { class: 'mono' }, a.eventId),
                    h('td', {}, String(a.attempt + 1), a.replayedBy ? ` (replay by ${a.replayedBy})` : ''),
                    h('td', {}, attemptAnswer(a)),
                    h('td', {}, `${a.latencyMs} ms`),
                    h('td', {}, a.outcome),
                    h('td', { class: 'mono' }, a.excerpt),
                  ),
                ),
              ),
            )
          : h('p', {}, 'No attempt in the last day.'),
        page.next
          ? h('p', { class: 'muted' }, 'Older attempts exist: see the API (docs/management-api.md).')
          : null,
      );
    } catch (error) {
      replace(log, errorBox(error));
    }
  }

  /** A replay by transaction or time range: the count first (dry run), then the send, both audited. */
  function replayForm(d: DestinationView): HTMLElement {
    const result = h('p', { 'data-testid': 'replay-result' });
    const form = h(
      'form',
      { class: 'filters', 'data-testid': 'replay-form' },
      h('h3', {}, 'Replay'),
      h(
        'label',
        {},
        'Transaction (provider/account/reference) ',
        h('input', { name: 'transaction', size: 40 }),
      ),
      ' or ',
      h('label', {}, 'from ', h('input', { name: 'from', type: 'datetime-local' })),
      h('label', {}, ' to ', h('input', { name: 'to', type: 'datetime-local' })),
      h('label', {}, ' event type ', h('input', { name: 'eventType', size: 20 })),
      ' ',
      h('button', { type: 'submit' }, 'Count'),
      result,
    );
    const selector = () => {
      const data = new FormData(form);
      const text = (k: string) => String(data.get(k) ?? '').trim();
      const body: Record<string, unknown> = {};
      if (text('transaction')) {
        const [provider, account, ...rest] = text('transaction').split('/');
        body.transaction = { provider, account, reference: rest.join('/') };
      }
      if (text('from')) body.from = new Date(text('from')).toISOString();
      if (text('to')) body.to = new Date(text('to')).toISOString();
      if (text('eventType')) body.eventType = text('eventType');
      return body;
    };
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const body = selector();
      try {
        const counted = await api<ReplayAnswer>(path(d.id, 'replay'), {
          method: 'POST',
          body: { ...body, dryRun: true },
        });
        const send = h('button', { type: 'button', 'data-testid': 'replay-send' }, `Replay ${counted.count}`);
        send.addEventListener('click', async () => {
          send.disabled = true;
          try {
            const sent = await api<ReplayAnswer>(path(d.id, 'replay'), {
              method: 'POST',
              body: { ...body, dryRun: false },
            });
            replace(result, `${sent.count} events queued again to ${d.id}, with their original webhook-id.`);
          } catch (error) {
            replace(result, errorBox(error));
          }
        });
        replace(
          result,
          h('span', { 'data-testid': 'replay-count' }, `${counted.count} events would be re-sent. `),
          counted.count > 0 ? send : null,
        );
      } catch (error) {
        replace(result, errorBox(error));
      }
    });
    return form;
  }

  /** The admin's rotation: a reference to the new secret, never the secret itself. */
  function rotateForm(d: DestinationView): HTMLElement {
    const result = h('span', {});
    const form = h(
      'form',
      { class: 'filters', 'data-testid': 'rotate-form' },
      h('h3', {}, 'Rotate the signing secret'),
      h(
        'label',
        {},
        'Secret reference (env:NAME locally, a Secrets Manager id in AWS) ',
        h('input', { name: 'secretRef', size: 40, required: true, autocomplete: 'off' }),
      ),
      h(
        'label',
        {},
        ' window (hours) ',
        h('input', { name: 'windowHours', type: 'number', value: 24, min: 1, max: 168 }),
      ),
      ' ',
      h('button', { type: 'submit' }, 'Rotate'),
      ' ',
      result,
    );
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const data = new FormData(form);
      try {
        await api(path(d.id, 'rotate'), {
          method: 'POST',
          body: { secretRef: String(data.get('secretRef')), windowHours: Number(data.get('windowHours')) },
        });
        replace(result, 'Rotated: both secrets sign during the window.');
        await load();
      } catch (error) {
        replace(result, errorBox(error));
      }
    });
    return form;
  }

  void load();
  return () => undefined;
}
