/**
 * The story's sentence and its collapsed checks (issue 30 item 5): why a transaction has its status, from
 * its evidence, for each way it got there; and a run of identical status checks as one line.
 */
import { describe, expect, it } from 'vitest';
import { storyOf } from '../../../shared/app/console/story';
import type { HistoryEntry } from '../../../shared/app/transactions/get-transaction';
import type { Evidence } from '../../../shared/domain/evidence';

const ana = { id: 'ana', name: 'ana', email: null, role: 'operator', via: 'token' } as const;

function evidence(overrides: Partial<Evidence>): Evidence {
  return {
    source: 'callback',
    claim: 'SUCCEEDED',
    authenticated: true,
    authentication: ['path-secret'],
    conclusive: false,
    at: '2026-11-21T14:00:00.000Z',
    providerCode: 'SUCCESSFUL',
    description: null,
    amount: { value: '100', currency: 'EUR' },
    receiptId: 'r1',
    ...overrides,
  };
}

const registered: HistoryEntry = { at: '2026-11-21T13:59:00.000Z', type: 'registered', detail: 'registered' };

function transition(to: string, e: Evidence | null, at: string, origin = 'callback'): HistoryEntry {
  return { at, type: 'transition', from: 'PENDING', to, origin, receiptId: null, evidence: e };
}

function check(at: string, answer = 'not-found', extra: Partial<HistoryEntry> = {}): HistoryEntry {
  return {
    at,
    type: 'status-check',
    answer,
    detail: 'RESOURCE_NOT_FOUND',
    providerCode: '404',
    ...extra,
  } as HistoryEntry;
}

const story = (status: string, history: HistoryEntry[], all: Evidence[] = [], statusChecks = 0) =>
  storyOf({
    transaction: { status, provider: 'momo' },
    providerName: 'MoMo',
    history,
    evidence: all,
    statusChecks,
  });

describe('the story sentence', () => {
  it('names a signed callback when a callback verified end to end settled it', () => {
    // Prepare
    const signed = evidence({ authentication: ['signature'], conclusive: true });
    // Act
    const { sentence } = story(
      'SUCCEEDED',
      [registered, transition('SUCCEEDED', signed, signed.at)],
      [signed],
    );
    // Assess
    expect(sentence).toBe('Paid: a signed callback from MoMo said so at 14:00.');
  });

  it('says the status API confirmed the unsigned callback when that is what settled it', () => {
    // Prepare
    const hint = evidence({});
    const confirmed = evidence({
      source: 'status-api',
      authentication: ['status-api'],
      conclusive: true,
      at: '2026-11-21T14:02:00.000Z',
      receiptId: null,
    });
    // Act
    const { sentence } = story(
      'SUCCEEDED',
      [
        registered,
        transition('AMBIGUOUS', hint, hint.at),
        transition('SUCCEEDED', confirmed, confirmed.at, 'poll'),
      ],
      [hint, confirmed],
    );
    // Assess
    expect(sentence).toBe("Paid: MoMo's status API confirmed the unsigned callback at 14:02.");
  });

  it('names the person who resolved it by hand, and the approver', () => {
    // Prepare
    const bo = { ...ana, id: 'bo', name: 'bo', role: 'admin' as const };
    const manual = evidence({
      source: 'operator',
      authentication: ['operator'],
      claim: 'FAILED',
      actor: ana,
      approvedBy: bo,
      receiptId: null,
      at: '2026-11-21T15:10:00.000Z',
    });
    // Act
    const { sentence } = story(
      'FAILED',
      [registered, transition('FAILED', manual, manual.at, 'manual')],
      [manual],
    );
    // Assess
    expect(sentence).toBe('Failed: decided by hand by ana (operator), approved by bo (admin) at 15:10.');
  });

  it('says an expired transaction had no final answer, with its checks and the last answer', () => {
    // Prepare
    const history = [
      registered,
      check('2026-11-21T14:40:00.000Z'),
      transition('EXPIRED', null, '2026-11-21T14:40:00.000Z', 'poll'),
    ];
    // Act
    const { sentence } = story('EXPIRED', history, [], 13);
    // Assess
    expect(sentence).toBe(
      "Expired: no final answer within the reconciliation window (13 status checks, the last answered 'not found' at 14:40); money may still move — resolve it after checking with MoMo.",
    );
  });

  it('says an ambiguous transaction waits for proof', () => {
    // Prepare
    const hint = evidence({});
    // Act
    const { sentence } = story('AMBIGUOUS', [registered, transition('AMBIGUOUS', hint, hint.at)], [hint]);
    // Assess
    expect(sentence).toBe(
      "Ambiguous: MoMo's callback (path secret checked) said SUCCEEDED at 14:00, not proven yet; the relay keeps asking MoMo.",
    );
  });

  it('names both sides of a conflict that left it ambiguous', () => {
    // Prepare
    const said = evidence({});
    const denied = evidence({
      source: 'status-api',
      authentication: ['status-api'],
      claim: 'FAILED',
      conclusive: true,
      at: '2026-11-21T14:05:00.000Z',
      receiptId: null,
    });
    const conflict: HistoryEntry = {
      at: denied.at,
      type: 'conflict',
      kind: 'STATUS',
      reportedStatus: 'FAILED',
      detail: 'disagree',
      origin: 'poll',
      receiptId: null,
      evidence: [said, denied],
      repeats: 0,
      lastAt: null,
    };
    // Act
    const { sentence } = story(
      'AMBIGUOUS',
      [registered, transition('AMBIGUOUS', denied, denied.at, 'poll'), conflict],
      [said, denied],
    );
    // Assess
    expect(sentence).toBe(
      "Ambiguous: MoMo's status API said FAILED at 14:05 but MoMo's callback (path secret checked) had said SUCCEEDED at 14:00; a person decides.",
    );
  });
});

describe('the story timeline', () => {
  it('collapses 13 identical checks into one line with their span and answer', () => {
    // Prepare
    const checks = Array.from({ length: 13 }, (_, i) =>
      check(`2026-11-21T10:${String(2 + i * 3).padStart(2, '0')}:00.000Z`),
    );
    // Act
    const { timeline } = story('PENDING', [registered, ...checks], [], 13);
    // Assess
    expect(timeline).toHaveLength(2);
    expect(timeline[1]).toMatchObject({
      kind: 'checks',
      count: 13,
      summary: "13 checks, 10:02–10:38, all 'not found'",
    });
  });

  it('counts checks already merged on the transaction and keeps different answers apart', () => {
    // Prepare
    const history = [
      registered,
      check('2026-11-21T10:01:00.000Z', 'pending'),
      check('2026-11-21T10:40:00.000Z', 'not-found', {
        count: 12,
        since: '2026-11-21T10:02:00.000Z',
      } as Partial<HistoryEntry>),
    ];
    // Act
    const { timeline } = story('PENDING', history, [], 13);
    // Assess
    expect(timeline.map((t) => (t.kind === 'checks' ? t.summary : t.entry.type))).toEqual([
      'registered',
      "Status check, answered 'pending'",
      "12 checks, 10:02–10:40, all 'not found'",
    ]);
  });

  it('says inline what each callback reported, from its evidence', () => {
    // Prepare
    const said = evidence({ description: 'Payment approved', providerCode: 'SUCCESSFUL' });
    const callback: HistoryEntry = {
      at: said.at,
      type: 'callback',
      receiptId: 'r1',
      route: 'callback',
      method: 'PUT',
      deliveries: 1,
      sourceIp: '192.0.2.1',
      lastReceivedAt: said.at,
      verification: {},
      bodyBytes: 200,
      bodyDropped: false,
      ack: null,
    };
    // Act
    const { timeline } = story('AMBIGUOUS', [registered, callback], [said]);
    // Assess
    expect(timeline[1]).toMatchObject({ said: 'SUCCEEDED, code SUCCESSFUL, “Payment approved”, 100 EUR' });
  });
});

describe('the story in a time zone, and its words', () => {
  const bo = { id: 'bo', name: 'bo', email: null, role: 'admin', via: 'token' } as const;
  const manual = evidence({
    source: 'operator',
    claim: 'FAILED',
    authentication: ['operator'],
    conclusive: true,
    actor: ana,
    approvedBy: bo,
    receiptId: null,
    at: '2026-11-21T15:10:00.000Z',
  });
  const history = [
    registered,
    check('2026-11-21T10:40:00.000Z', 'not-found', {
      count: 13,
      since: '2026-11-21T10:02:00.000Z',
    } as Partial<HistoryEntry>),
    transition('FAILED', manual, manual.at, 'manual'),
  ];

  it("tells the sentence's and the summaries' clock times in the zone asked for, UTC by default", () => {
    // Act
    const utc = story('FAILED', history, [manual], 13);
    const nairobi = storyOf({
      transaction: { status: 'FAILED', provider: 'momo' },
      providerName: 'MoMo',
      history,
      evidence: [manual],
      statusChecks: 13,
      timeZone: 'Africa/Nairobi',
    });
    // Assess: Nairobi is UTC+3 all year.
    expect(utc.timeZone).toBe('UTC');
    expect(utc.sentence).toContain('at 15:10.');
    expect(nairobi.timeZone).toBe('Africa/Nairobi');
    expect(nairobi.sentence).toContain('at 18:10.');
    expect(nairobi.timeline[1]).toMatchObject({ summary: "13 checks, 13:02–13:40, all 'not found'" });
  });

  it('words every entry of the timeline, naming who took a manual step and who approved it', () => {
    // Act
    const { timeline } = story('FAILED', history, [manual], 13);
    // Assess
    expect(timeline.map((t) => (t.kind === 'entry' ? t.title : t.summary))).toEqual([
      'Registered',
      "13 checks, 10:02–10:40, all 'not found'",
      'Transition PENDING → FAILED (manual) by ana (operator), approved by bo (admin)',
    ]);
  });
});
