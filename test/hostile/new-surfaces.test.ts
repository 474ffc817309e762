/**
 * Hostile input against the surfaces of issue 18, black-box over HTTP to the real local relay on
 * DynamoDB Local: hint floods, hints that name another transaction, a path that names another kind,
 * operator notes carrying secrets or control characters, reversal repeats and contradictions. (Badge ids,
 * echoed Daraja URLs and buffer tampering have their own files: test/unit/app/daraja-facts.test.ts,
 * test/unit/app/badge-feed.test.ts, test/integration/daraja-callbacks.test.ts and
 * test/unit/local/file-ingress-buffer.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventData,
  eventsOfReference,
  eventType,
  momoOpenClient,
  momoSuccessBody,
  type RawResponse,
  rawRequest,
  SAFARICOM_IP,
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

const { call, register, view } = momoOpenClient(
  {
    get url() {
      return relay.url;
    },
  },
  expect,
);

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

  it('refuses a reference-less callback whose externalId is too long with a 400 naming the externalId', async () => {
    // Act
    const body = { externalId: 'x'.repeat(201), status: 'SUCCESSFUL' };
    const answer = await call('POST', '/v1/momo/open/requesttopay', body);
    // Assess
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('its externalId must be 1 to 200 characters (got 201)');
    expect(answer.text).not.toContain('the reference must');
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

  it.each([
    ['a newline', 'MP1234\nforged'],
    ['an ESC sequence', 'MP1234\u001b[31m'],
    ['a DEL', 'MP1234\u007f'],
    ['a C1 control', 'MP1234\u0085'],
  ])(
    'refuses a providerTransactionId carrying %s with 400, as callbacks and registrations do',
    async (_what, providerTransactionId) => {
      // Prepare
      const reference = await ambiguous();
      // Act
      const res = await call(
        'POST',
        `/v1/transactions/momo/open/${reference}/resolve`,
        { status: 'SUCCEEDED', note: 'MTN support confirms the payment', providerTransactionId },
        true,
      );
      // Assess
      expect(res.status).toBe(400);
      expect(res.text).toContain('providerTransactionId');
      expect((await view(reference)).transaction.status).toBe('AMBIGUOUS');
    },
  );
});

describe('reversal results about one payment', () => {
  const fixture = (name: string) =>
    readFileSync(new URL(`../fixtures/daraja/${name}.json`, import.meta.url), 'utf8');

  async function daraja(route: string, body: string): Promise<RawResponse> {
    return rawRequest(relay.url, {
      method: 'POST',
      path: `/v1/daraja/open/${route}`,
      headers: [
        ['content-type', 'application/json'],
        ['x-forwarded-for', SAFARICOM_IP],
      ],
      body,
    });
  }

  /** A paid STK push of 1 KES with its own receipt, and reversal results under chosen request ids. */
  async function paid(): Promise<{ receipt: string; reversal: (id: string, amount?: string) => string }> {
    const receipt = `R${uuid().replace(/-/g, '').slice(0, 9).toUpperCase()}`;
    const checkout = `ws_CO_${uuid().replace(/-/g, '')}`;
    const stk = fixture('stk-success')
      .replace('ws_CO_191220191020363925', checkout)
      .replace('"Value":"NLJ7RT61SV"', `"Value":"${receipt}"`);
    const res = await daraja('stk', stk);
    expect(res.status, res.text).toBe(200);
    const reversal = (id: string, amount = '1.00') =>
      fixture('reversal-result-success')
        .replaceAll('8521-4298025-1', id)
        .replace('AG_20191219_00005797af5d7d75f652', `AG_${id}`)
        .replace('"Value":"NLJ7RT61SV"', `"Value":"${receipt}"`)
        .replace('"Key":"Amount","Value":1.00', `"Key":"Amount","Value":${amount}`);
    return { receipt, reversal };
  }

  it('publishes one TransactionReversed, never more than the payment, for three results (one of them 999,999×)', async () => {
    // Prepare
    const { receipt, reversal } = await paid();
    await relay.flush();
    // Act
    const answers = [];
    for (const body of [
      reversal(`a-${receipt}`),
      reversal(`b-${receipt}`),
      reversal(`c-${receipt}`, '999999'),
    ])
      answers.push((await daraja('reversal/result', body)).status);
    const events = await relay.flush();
    // Assess
    expect(answers).toEqual([200, 200, 200]);
    const reversed = events.filter(
      (e) => eventType(e) === 'TransactionReversed' && eventData(e).originalReceipt === receipt,
    );
    expect(reversed).toHaveLength(1);
    expect(events.filter((e) => eventType(e) === 'TransactionConflict')).toHaveLength(2);
  });

  it('raises a conflict when a forged ReversalFailed comes first under the request id of a real reversal', async () => {
    // Prepare
    const { receipt, reversal } = await paid();
    const id = `f-${receipt}`;
    const forged = fixture('reversal-result-failure')
      .replaceAll('8521-4298025-2', id)
      .replace('AG_20191219_00005797af5d7d75f653', `AG_${id}`);
    await relay.flush();
    // Act
    await daraja('reversal/result', forged);
    await daraja('reversal/result', reversal(id));
    const events = await relay.flush();
    // Assess: the contradiction is a conflict naming both claims, never a silent "first wins".
    const claims = events
      .filter((e) => eventType(e) === 'TransactionConflict')
      .map((e) =>
        eventData(e)
          .conflict.evidence.map((x: { claim: string }) => x.claim)
          .join('→'),
      );
    expect(claims, JSON.stringify(claims)).toContain('FAILED→SUCCEEDED');
  });

  it('raises a conflict when a ReversalFailed comes after a real reversal under the same request id', async () => {
    // Prepare: the real reversal is recorded first; the failure names no receipt (as Daraja's failures do).
    const { receipt, reversal } = await paid();
    const id = `s-${receipt}`;
    const failed = fixture('reversal-result-failure')
      .replaceAll('8521-4298025-2', id)
      .replace('AG_20191219_00005797af5d7d75f653', `AG_${id}`);
    await daraja('reversal/result', reversal(id));
    await relay.flush();
    // Act
    const answer = await daraja('reversal/result', failed);
    const events = await relay.flush();
    // Assess: the second result is not dropped: a conflict on the payment names both claims.
    expect(answer.status).toBe(200);
    const conflicts = events.filter((e) => eventType(e) === 'TransactionConflict');
    const claims = conflicts.map((e) =>
      eventData(e)
        .conflict.evidence.map((x: { claim: string }) => x.claim)
        .join('→'),
    );
    expect(claims, JSON.stringify(claims)).toContain('SUCCEEDED→FAILED');
    expect(eventData(conflicts[0]!).providerTransactionId ?? eventData(conflicts[0]!).reference).toBeTruthy();
  });
});
