/**
 * Hostile input against the surfaces of issue 18, black-box over HTTP to the real local relay on
 * DynamoDB Local: hint floods, hints that name another transaction, a path that names another kind,
 * operator notes carrying secrets or control characters. (Reversal repeats, badge ids, echoed Daraja
 * URLs and buffer tampering have their own files: test/unit/app/daraja-facts.test.ts,
 * test/unit/app/badge-feed.test.ts, test/integration/daraja-callbacks.test.ts and
 * test/unit/local/file-ingress-buffer.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventData,
  eventsOfReference,
  eventType,
  momoSuccessBody,
  type RawResponse,
  rawRequest,
  secretsIn,
  startHostileRelay,
  uuid,
} from '../helpers/hostile';
import { ADMIN_TOKEN, type TestRelay } from '../helpers/relay';

let relay: TestRelay;

beforeAll(async () => {
  relay = await startHostileRelay();
});

afterAll(async () => {
  await relay?.stop();
});

async function call(method: string, path: string, body?: unknown, admin = false): Promise<RawResponse> {
  const headers: [string, string][] = [['content-type', 'application/json']];
  if (admin) headers.push(['authorization', `Bearer ${ADMIN_TOKEN}`]);
  return rawRequest(relay.url, {
    method,
    path,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function register(reference: string, externalId?: string): Promise<void> {
  const res = await call(
    'POST',
    '/v1/transactions',
    {
      provider: 'momo',
      account: 'open',
      kind: 'requesttopay',
      reference,
      amount: '100',
      currency: 'EUR',
      ...(externalId ? { externalId } : {}),
    },
    true,
  );
  expect(res.status, res.text).toBe(201);
}

async function view(reference: string, query = ''): Promise<Record<string, any>> {
  const res = await call('GET', `/v1/transactions/momo/open/${reference}${query}`, undefined, true);
  expect(res.status, res.text).toBe(200);
  return JSON.parse(res.text);
}

describe('a flood of distinct hints about one transaction', () => {
  it('answers every hint, keeps at most 64 bodies, counts the rest and pages the history', async () => {
    // Prepare
    const reference = uuid();
    await register(reference, 'flood-order');
    // Act: 70 distinct reference-less PENDING bodies of 2 KB naming its externalId.
    const answers: number[] = [];
    for (let i = 0; i < 70; i++) {
      const body = { externalId: 'flood-order', status: 'PENDING', payerMessage: `${i} ${'x'.repeat(2000)}` };
      answers.push((await call('POST', '/v1/momo/open/requesttopay', body)).status);
    }
    const first = await view(reference);
    const second = await view(reference, `?receiptsAfter=${first.receipts.next}&receiptsLimit=200`);
    // Assess
    expect(answers.every((s) => s === 200)).toBe(true);
    expect(first.receipts.tally).toMatchObject({ kept: 64, dropped: 6 });
    expect(first.receipts.listed).toBe(50);
    expect(second.receipts).toMatchObject({ listed: 20, next: null });
    const callbacks = [...first.history, ...second.history].filter((h: any) => h.type === 'callback');
    expect(callbacks.filter((h: any) => h.bodyDropped)).toHaveLength(6);
    expect(first.transaction.status).toBe('PENDING');
  });

  it('refuses a receipts cursor or page size it did not hand out with a 400 naming the parameter', async () => {
    // Prepare
    const reference = uuid();
    await register(reference);
    // Act
    const badCursor = await call(
      'GET',
      `/v1/transactions/momo/open/${reference}?receiptsAfter=zz`,
      undefined,
      true,
    );
    const badLimit = await call(
      'GET',
      `/v1/transactions/momo/open/${reference}?receiptsLimit=100000`,
      undefined,
      true,
    );
    // Assess
    expect(badCursor.status).toBe(400);
    expect(badCursor.text).toContain('receiptsAfter');
    expect(badLimit.status).toBe(400);
    expect(badLimit.text).toContain('receiptsLimit');
  });
});

describe('a hint whose externalId is another transaction’s reference', () => {
  it('is not filed as that transaction’s callback and does not change it', async () => {
    // Prepare: a transaction registered without an externalId.
    const reference = uuid();
    await register(reference);
    // Act
    const res = await call('POST', '/v1/momo/open/requesttopay', momoSuccessBody({ externalId: reference }));
    const seen = await view(reference);
    // Assess
    expect(res.status).toBeLessThan(500);
    expect(seen.history.filter((h: any) => h.type === 'callback')).toEqual([]);
    expect(seen.transaction.status).toBe('PENDING');
  });
});

describe('a per-reference callback whose path names another kind', () => {
  it('refuses a FAILED on /deposit/{ref} for a requesttopay with 409 KIND_MISMATCH and leaves it PENDING', async () => {
    // Prepare
    const reference = uuid();
    await register(reference);
    // Act
    const res = await call('PUT', `/v1/momo/open/deposit/${reference}`, {
      ...momoSuccessBody({ status: 'FAILED' }),
      reason: 'INTERNAL_PROCESSING_ERROR',
    });
    // Assess
    expect(res.status).toBe(409);
    expect(res.text).toContain('KIND_MISMATCH');
    expect((await view(reference)).transaction.status).toBe('PENDING');
  });
});

describe('an operator note', () => {
  async function ambiguous(): Promise<string> {
    // An unsigned MoMo success on an account without a status API stays AMBIGUOUS UNCONFIRMED.
    const reference = uuid();
    await register(reference);
    const res = await call('PUT', `/v1/momo/open/requesttopay/${reference}`, momoSuccessBody());
    expect(res.status, res.text).toBe(200);
    expect((await view(reference)).transaction.status).toBe('AMBIGUOUS');
    return reference;
  }

  it('is scrubbed of configured secrets and MSISDNs before it reaches the transaction, its history or an event', async () => {
    // Prepare
    const reference = await ambiguous();
    await relay.flush();
    // Act
    const res = await call(
      'POST',
      `/v1/transactions/momo/open/${reference}/resolve`,
      {
        status: 'SUCCEEDED',
        note: `paid; ticket says token ${ADMIN_TOKEN}, payer 256772123456`,
        amount: '100',
      },
      true,
    );
    const events = eventsOfReference(await relay.flush(), reference);
    const stored = JSON.stringify(await view(reference));
    // Assess
    expect(res.status, res.text).toBe(200);
    const resolved = events.find((e) => eventType(e) === 'TransactionSucceeded');
    expect(resolved).toBeDefined();
    for (const text of [JSON.stringify(eventData(resolved!)), stored, res.text]) {
      expect(text).not.toContain(ADMIN_TOKEN);
      expect(text).not.toContain('256772123456');
      expect(secretsIn(text)).toEqual([]);
    }
    expect(stored).toContain('[REDACTED]');
  });

  it.each([
    ['a newline', 'paid\nforged: line'],
    ['an ESC sequence', 'paid \u001b[31mred'],
    ['a DEL', 'paid \u007f'],
    ['a C1 control', 'paid \u0085 next'],
  ])('is refused with 400 when it carries %s, and nothing changes', async (_what, note) => {
    // Prepare
    const reference = await ambiguous();
    // Act
    const res = await call(
      'POST',
      `/v1/transactions/momo/open/${reference}/resolve`,
      { status: 'FAILED', note },
      true,
    );
    // Assess
    expect(res.status).toBe(400);
    expect((await view(reference)).transaction.status).toBe('AMBIGUOUS');
  });
});
