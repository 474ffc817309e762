import { api, ApiError, NotAvailableError, storyPath } from '../api';
import { append, errorBox, h, notAvailable, replace, statusPill, when } from '../dom';
import { currentToken } from '../auth';
import { exportButton } from '../export';
import { whoAmI } from '../me';
import { attemptAnswer } from './destinations';
import { shownZone } from '../time';

type Entry = { at: string; type: string } & Record<string, unknown>;

interface Story {
  transaction: Record<string, unknown> & {
    status: string;
    provider: string;
    account: string;
    reference: string;
  };
  history: Entry[];
  evidence?: unknown[];
  reconciliation?: Record<string, unknown>;
  receipts?: { tally: Record<string, number> | null; listed: number; next: string | null };
  /** Why it has its status, and the history with repeated checks collapsed (shared/app/console/story.ts). */
  story: { sentence: string; timeline: StoryEntry[] };
  refused?: Array<{ quarantineId: string; receivedAt: string; errorCode: string; httpStatus: number }>;
  /** Its events' webhook deliveries, per event and destination (docs/webhooks.md). */
  deliveries?: Delivery[];
}

type StoryEntry =
  /** `title`: the entry in words, worded by the relay (shared/app/console/story.ts, the one place). */
  | { kind: 'entry'; entry: Entry; title: string; said: string | null }
  | {
      kind: 'checks';
      count: number;
      from: string;
      to: string;
      answer: string;
      detail: string;
      providerCode: string | null;
      request: string | null;
      summary: string;
    };

const RESOLVABLE = new Set(['EXPIRED', 'AMBIGUOUS']);

function amountText(amount: unknown, currency: unknown): string | null {
  if (amount && typeof amount === 'object') {
    const a = amount as { value?: string; currency?: string };
    return `${a.value ?? ''} ${a.currency ?? ''}`.trim();
  }
  return amount === null || amount === undefined
    ? null
    : `${String(amount)} ${String(currency ?? '')}`.trim();
}

/** "partly: 40 KES went back, 60 KES left" — a SUCCEEDED payment's reversals (undefined: none, row hidden). */
function reversalText(reversal: unknown, amount: unknown): string | undefined {
  if (!reversal || typeof reversal !== 'object') return undefined;
  const r = reversal as { state: string; amountReversed: string | null; netAmount: string | null };
  const currency = (amount as { currency?: string } | null)?.currency ?? '';
  const money = (value: string | null) =>
    value === null ? 'an unknown amount' : `${value} ${currency}`.trim();
  return `${r.state === 'full' ? 'fully' : 'partly'}: ${money(r.amountReversed)} went back, ${money(r.netAmount)} left`;
}

function json(value: unknown): HTMLElement {
  return h('pre', { class: 'json' }, JSON.stringify(value, null, 2));
}

/** Raw JSON only on request: a closed disclosure a person opens when the words are not enough. */
function rawToggle(value: unknown): HTMLElement {
  return h('details', { class: 'raw' }, h('summary', {}, 'Raw JSON'), json(value));
}

function facts(pairs: Array<[string, unknown]>): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    pairs
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [
        h('dt', {}, k),
        h('dd', {}, v === null ? '—' : typeof v === 'object' ? rawToggle(v) : String(v)),
      ]),
  );
}

function receiptBody(path: string, receiptId: string): HTMLElement {
  const slot = h('div', { class: 'body' });
  const button = h('button', { class: 'small' }, 'Show body (redacted as stored)');
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const answer = await api<Record<string, unknown>>(`${path}/receipts/${encodeURIComponent(receiptId)}`);
      replace(slot, json(answer));
    } catch (error) {
      replace(slot, error instanceof NotAvailableError ? notAvailable('Stored bodies') : errorBox(error));
    }
  });
  slot.appendChild(button);
  return slot;
}

/** A run of identical status checks: one line, the question and the answer inline (no click needed). */
function checksView(c: Extract<StoryEntry, { kind: 'checks' }>, account: string): HTMLElement {
  return h(
    'li',
    { class: 'entry t-status-check', 'data-testid': 'entry-checks' },
    h('time', {}, when(c.count > 1 ? c.from : c.to, account)),
    h(
      'div',
      {},
      h('strong', {}, c.summary),
      h(
        'p',
        { class: 'said' },
        `Asked: ${c.request ?? 'the status API (request not recorded)'} — answered ${c.answer}${c.providerCode ? ` (${c.providerCode})` : ''}: ${c.detail}`,
      ),
    ),
  );
}

function storyEntryView(s: StoryEntry, path: string, account: string): HTMLElement {
  if (s.kind === 'checks') return checksView(s, account);
  const li = entryView(s.entry, s.title, path, account);
  const summary = li.querySelector('summary');
  // What the provider said is free text: through dom.ts's append, as every text shown.
  if (s.said && summary) append(summary, [` — reported ${s.said}`]);
  return li;
}

function entryView(e: Entry, title: string, path: string, account: string): HTMLElement {
  let details: HTMLElement | null = null;
  if (e.type === 'callback')
    details = h(
      'div',
      {},
      facts([
        ['route', e.route],
        ['source IP', e.sourceIp],
        ['deliveries', e.deliveries],
        ['last received', when(e.lastReceivedAt as string, account)],
        ['verification', e.verification],
        ['ack', e.ack],
        ['body bytes', e.bodyBytes],
        ['body dropped', e.bodyDropped],
      ]),
      typeof e.receiptId === 'string' && !e.bodyDropped ? receiptBody(path, e.receiptId) : null,
    );
  else if (e.type === 'status-check')
    details = facts([
      ['asked', e.request ?? null],
      ['answer', e.answer],
      ['detail', e.detail],
      ['provider code', e.providerCode],
    ]);
  else if (e.type === 'transition')
    details = facts([
      ['origin', e.origin],
      ['receipt', e.receiptId],
      ['evidence', e.evidence],
    ]);
  else if (e.type === 'conflict')
    details = facts([
      ['detail', e.detail],
      ['origin', e.origin],
      ['evidence', e.evidence],
    ]);
  else if (e.type === 'reversal')
    details = facts([
      ['reversal receipt', e.reversalReceipt],
      ['receipt', e.receiptId],
      ['evidence', e.evidence],
    ]);
  else if (e.type === 'event') details = facts([['event id', e.eventId]]);
  else if (e.detail !== undefined) details = facts([['detail', e.detail]]);
  return h(
    'li',
    { class: `entry t-${e.type}`, 'data-testid': `entry-${e.type}` },
    h('time', {}, when(e.at, account)),
    h('details', { open: e.type !== 'event' }, h('summary', {}, title), details),
  );
}

/** The story's timeline with the escalation (a reconciliation fact) placed at its time. */
function withEscalation(story: Story): StoryEntry[] {
  const entries = [...story.story.timeline];
  const escalatedAt = story.reconciliation?.escalatedAt;
  if (typeof escalatedAt === 'string') {
    const at = (s: StoryEntry) => (s.kind === 'checks' ? s.from : s.entry.at);
    const i = entries.findIndex((s) => at(s) > escalatedAt);
    const escalation: StoryEntry = {
      kind: 'entry',
      entry: { at: escalatedAt, type: 'escalation' },
      title: 'Escalated',
      said: null,
    };
    entries.splice(i < 0 ? entries.length : i, 0, escalation);
  }
  return entries;
}

function copyText(text: string, button: HTMLButtonElement): void {
  const done = () => {
    button.textContent = 'Copied';
    setTimeout(() => (button.textContent = 'Copy JSON'), 1500);
  };
  if (navigator.clipboard?.writeText) {
    navigator.clipboard.writeText(text).then(done, () => fallbackCopy(text, done));
  } else fallbackCopy(text, done);
}

function fallbackCopy(text: string, done: () => void): void {
  const area = h('textarea', {}, text);
  document.body.appendChild(area);
  area.select();
  document.execCommand('copy');
  area.remove();
  done();
}

function resolveDialog(path: string, tx: Story['transaction'], reload: () => void): HTMLElement {
  const dialog = h('form', { class: 'resolve', 'data-testid': 'resolve-form' });
  // What the relay holds ({value, currency}, or null): shown as the fields' hints, sent only if typed.
  const held = tx.amount as { value?: string; currency?: string } | null | undefined;
  const stepOne = () => {
    const error = h('p', { class: 'error', role: 'alert' });
    replace(
      dialog,
      h('h3', {}, `Resolve ${tx.status} ${tx.reference}`),
      h('p', {}, 'Only after checking with the provider. The note is recorded in the history and the event.'),
      h(
        'label',
        {},
        'Outcome ',
        h(
          'select',
          { name: 'status' },
          h('option', { value: 'SUCCEEDED' }, 'SUCCEEDED'),
          h('option', { value: 'FAILED' }, 'FAILED'),
        ),
      ),
      h(
        'label',
        { class: 'block' },
        'Note (required) ',
        h('textarea', {
          name: 'note',
          rows: 3,
          cols: 60,
          'aria-required': 'true',
          minlength: 3,
          maxlength: 500,
        }),
      ),
      h('label', {}, 'Amount ', h('input', { name: 'amount', size: 10, placeholder: held?.value ?? '' })),
      h(
        'label',
        {},
        ' Currency ',
        h('input', { name: 'currency', size: 4, maxlength: 3, placeholder: held?.currency ?? '' }),
      ),
      h('label', {}, ' Provider receipt ', h('input', { name: 'providerTransactionId', size: 16 })),
      error,
      h('button', { type: 'submit' }, 'Review'),
    );
    dialog.onsubmit = (e) => {
      e.preventDefault();
      const data = Object.fromEntries(new FormData(dialog)) as Record<string, string>;
      const note = (data.note ?? '').trim();
      if (note.length < 3) {
        error.textContent = 'A note of at least 3 characters is required.';
        return;
      }
      const body: Record<string, string> = { status: data.status ?? 'SUCCEEDED', note };
      if (data.amount) body.amount = data.amount;
      if (data.currency) body.currency = data.currency.trim().toUpperCase();
      if (data.providerTransactionId) body.providerTransactionId = data.providerTransactionId;
      confirm(body);
    };
  };
  const confirm = (body: Record<string, string>) => {
    const error = h('div', { role: 'alert' });
    replace(
      dialog,
      h('h3', {}, 'Confirm'),
      h(
        'p',
        { 'data-testid': 'resolve-confirm' },
        `Mark ${tx.reference} ${body.status}${body.amount ? ` (${body.amount} ${body.currency ?? held?.currency ?? ''})`.replace(' )', ')') : ''}, noting: “${body.note}”?`,
      ),
      error,
      h('button', { type: 'button', class: 'secondary', onclick: stepOne }, 'Back'),
      ' ',
      h('button', { type: 'submit', class: 'danger' }, `Confirm ${body.status}`),
    );
    dialog.onsubmit = async (e) => {
      e.preventDefault();
      try {
        const answer = await api<{ pending?: boolean; approval?: { id: string; limit: string } }>(
          `${path}/resolve`,
          { method: 'POST', body },
        );
        if (answer.pending && answer.approval) {
          // Above the account's limit: nothing changed yet; an admin decides it in Approvals.
          replace(
            dialog,
            h(
              'p',
              { 'data-testid': 'resolve-pending', role: 'status' },
              `Above the account's limit (${answer.approval.limit}): waiting for a second person's approval. `,
              h('a', { href: '#/approvals' }, 'Approvals'),
            ),
          );
          return;
        }
        reload();
      } catch (caught) {
        replace(error, errorBox(caught), caught instanceof ApiError ? json(caught.body) : null);
      }
    };
  };
  stepOne();
  return dialog;
}

export function storyView(
  root: HTMLElement,
  key: { provider: string; account: string; reference: string },
): () => void {
  const path = storyPath(key);
  const account = `${key.provider}/${key.account}`;
  const load = async () => {
    replace(root, h('p', {}, 'Loading…'));
    let story: Story;
    try {
      // The sentence's clock times in the zone the operator chose (docs/console.md#time-zone).
      story = await api<Story>(path, { query: { timeZone: shownZone(account) } });
    } catch (error) {
      replace(root, h('h1', {}, key.reference), errorBox(error));
      return;
    }
    const tx = story.transaction;
    const actionOut = h('div', { class: 'action-out', 'data-testid': 'action-out' });
    const copy = h('button', { class: 'secondary' }, 'Copy JSON');
    copy.addEventListener('click', () => copyText(JSON.stringify(story, null, 2), copy));
    const check = h('button', { 'data-testid': 'check-now' }, 'Check now');
    check.addEventListener('click', async () => {
      check.disabled = true;
      try {
        const answer = await api<{ answer: { type: string; detail: string }; events: string[] }>(
          `${path}/check`,
          {
            method: 'POST',
          },
        );
        await load();
        root
          .querySelector('[data-testid=action-out]')
          ?.replaceChildren(
            h(
              'p',
              {},
              `Asked the provider: ${answer.answer.type} ${answer.answer.detail ?? ''}; events ${answer.events.join(', ') || 'none'}`,
            ),
          );
      } catch (error) {
        replace(actionOut, errorBox(error));
        check.disabled = false;
      }
    });
    const resolveButton = RESOLVABLE.has(tx.status)
      ? h('button', { class: 'danger', 'data-testid': 'resolve' }, 'Resolve…')
      : null;
    resolveButton?.addEventListener('click', () =>
      replace(
        actionOut,
        resolveDialog(path, tx, () => void load()),
      ),
    );
    // What the role cannot do is not offered (the API refuses it anyway: 403 FORBIDDEN_ROLE).
    const canOperate = await whoAmI(currentToken())
      .then((me) => me.can.operate)
      .catch(() => true);
    const rec = story.reconciliation ?? {};
    replace(
      root,
      h('p', {}, h('a', { href: '#/transactions' }, '← transactions')),
      h(
        'h1',
        { 'data-testid': 'story-title' },
        `${tx.provider}/${tx.account} `,
        h('span', { class: 'mono' }, tx.reference),
        ' ',
        statusPill(tx.status),
        // The status stays SUCCEEDED: the reversal shows beside it.
        tx.reversal
          ? h(
              'span',
              { class: 'pill s-reversed', 'data-testid': 'story-reversal' },
              (tx.reversal as { state: string }).state === 'full' ? 'reversed' : 'partly reversed',
            )
          : null,
      ),
      h('p', { class: 'story-sentence', 'data-testid': 'story-sentence' }, story.story.sentence),
      story.refused?.length
        ? h(
            'p',
            { 'data-testid': 'story-refused' },
            `Refused callbacks aimed at it: `,
            story.refused.map((r, i) => [
              i ? ', ' : '',
              h(
                'a',
                {
                  href: `#/quarantine?from=${encodeURIComponent(r.receivedAt.slice(0, 10))}&to=${encodeURIComponent(r.receivedAt)}`,
                  'data-quarantine-id': r.quarantineId,
                },
                `${r.errorCode} at ${when(r.receivedAt, account)}`,
              ),
            ]),
            ' ',
            storyExport(path, 'refused'),
          )
        : null,
      h('div', { class: 'actions' }, canOperate ? [check, ' ', resolveButton, ' '] : null, copy),
      actionOut,
      h(
        'div',
        { class: 'cols' },
        h(
          'section',
          {},
          h('h2', {}, 'Transaction'),
          facts([
            ['kind', tx.kind],
            ['status', tx.status],
            ['reason', tx.reason],
            ['amount', amountText(tx.amount, tx.currency)],
            ['reversed', reversalText(tx.reversal, tx.amount)],
            // The API masks every number (shared/util/mask.ts): one format for the list, the story and the JSON.
            ['MSISDN', tx.msisdn ?? null],
            ['external id', tx.externalId],
            ['provider receipt', tx.providerTransactionId],
            ['created', when(tx.createdAt as string, account)],
            ['updated', when(tx.updatedAt as string, account)],
          ]),
          h('h2', {}, 'Reconciliation'),
          facts([
            ['status checks', rec.statusChecks],
            ['next check', when(rec.nextCheckAt as string | null, account)],
            ['reconcile until', when(rec.reconcileUntil as string, account)],
            ['escalated', when(rec.escalatedAt as string | null, account)],
            ['receipts', story.receipts],
          ]),
          h('h2', {}, 'Evidence'),
          storyExport(path, 'evidence'),
          story.evidence?.length ? rawToggle(story.evidence) : h('p', {}, 'None yet.'),
        ),
        h(
          'section',
          {},
          // The timeline's times in the zone shown, as the sentence's.
          h('h2', {}, 'Timeline'),
          storyExport(path, 'timeline', { timeZone: shownZone(account) }),
          h(
            'ol',
            { class: 'timeline', 'data-testid': 'timeline' },
            withEscalation(story).map((s) => storyEntryView(s, path, account)),
          ),
          deliveriesView(story.deliveries, path),
        ),
      ),
    );
  };
  void load();
  return () => undefined;
}

interface Delivery {
  eventType: string;
  destination: string;
  attempts: Array<{ attempt: number; at: string; status: number | null; latencyMs: number; outcome: string }>;
}

/** The transaction's deliveries beside its timeline: one line per attempt, per event and destination. */
function deliveriesView(deliveries: Delivery[] | undefined, path: string): HTMLElement | null {
  if (!deliveries?.length) return null;
  return h(
    'div',
    { 'data-testid': 'story-deliveries' },
    h('h2', {}, 'Deliveries'),
    storyExport(path, 'deliveries'),
    deliveries.map((d) =>
      h(
        'ol',
        { class: 'timeline' },
        d.attempts.map((a) =>
          h(
            'li',
            {},
            `${when(a.at)} · ${d.eventType} → ${d.destination} · attempt ${a.attempt + 1}: `,
            `${attemptAnswer(a)} ${a.outcome} (${a.latencyMs} ms)`,
          ),
        ),
      ),
    ),
  );
}

/** One list of the story as CSV (GET …?format=csv&list=…), as every list's Export CSV (docs/console.md#exports). */
function storyExport(
  path: string,
  list: 'timeline' | 'evidence' | 'deliveries' | 'refused',
  query: Record<string, string> = {},
): HTMLElement {
  return exportButton(`story-${list}-csv`, path, () => ({ ...query, list }));
}
