/**
 * Forged Daraja C2B confirmations: Daraja signs nothing, so its sender is vouched for by the source-IP
 * allow-list alone (a path secret is in every URL it was ever shown). A confirmation from an address the
 * list did not admit (log-only, or the list off) is an unauthenticated callback: it never settles a payment
 * on its own word. Where the account can ask Daraja (`api`) the transaction waits AMBIGUOUS (UNCONFIRMED) for
 * the status query; where it cannot, it is held for a person. Daraja's own address still settles at once.
 */
import { describe, expect, it } from 'vitest';
import { resolveOrRequest } from '../../../shared/app/operations/approvals';
import type { Actor } from '../../../shared/domain/actor';
import { SchemaValidationError } from '../../../shared/domain/errors';
import { registered } from '../../helpers/reports';
import { DARAJA_IP, darajaWorld, FORGER_IP, fixture } from './forged-daraja-world';

const TRANS_ID = 'RKTQDM7W6S';
const confirmation = fixture('c2b-confirmation');

function setup(account: { mode: 'log-only' | 'off' | 'enforce'; api?: boolean; resolveLimit?: string }) {
  const world = darajaWorld(account);
  return {
    ...world,
    post: (sourceIp: string, route = 'c2b/confirmation', body = confirmation) =>
      world.post(route, body, sourceIp),
    transaction: () => world.transaction(TRANS_ID),
  };
}

describe('a Daraja C2B confirmation from an address the allow-list did not admit', () => {
  it.each(['log-only', 'off'] as const)(
    'with a status API (list %s): held AMBIGUOUS (UNCONFIRMED) and asked about at once, never TransactionSucceeded',
    async (mode) => {
      // Prepare
      const s = setup({ mode, api: true });
      // Act
      expect(await s.post(FORGER_IP)).toBe(200);
      // Assess
      expect(s.types()).not.toContain('TransactionSucceeded');
      const tx = await s.transaction();
      expect(tx).toMatchObject({ status: 'AMBIGUOUS', reason: { code: 'UNCONFIRMED' } });
      expect(tx?.reconcile?.dueAt).toBe('2026-11-23T10:00:01.000Z');
      expect(tx?.evidence?.at(-1)).toMatchObject({
        claim: 'SUCCEEDED',
        authentication: ['path-secret'],
        conclusive: false,
      });
      // The first look asks Daraja about the receipt the body named (here Daraja is out: still AMBIGUOUS).
      await s.poll();
      const looked = await s.transaction();
      expect(looked?.reconcile?.recent.at(-1)?.request).toContain(`TransactionID ${TRANS_ID}`);
      expect(looked?.status).toBe('AMBIGUOUS');
    },
  );

  it('without a status API: held AMBIGUOUS (UNCONFIRMED) and escalated at the first look, never TransactionSucceeded', async () => {
    // Prepare
    const s = setup({ mode: 'log-only' });
    // Act
    expect(await s.post(FORGER_IP)).toBe(200);
    // Assess
    expect(s.types()).not.toContain('TransactionSucceeded');
    const tx = await s.transaction();
    expect(tx).toMatchObject({ status: 'AMBIGUOUS', reason: { code: 'UNCONFIRMED' } });
    const ambiguous = s.store.published.find((e) => e.metadata.type === 'TransactionAmbiguous');
    expect(ambiguous?.data).toMatchObject({ reason: { code: 'UNKNOWN' }, reasonDetail: 'UNCONFIRMED' });
    // Nothing can confirm it: the first look hands it to a person (a statement row or their resolve settles it).
    await s.poll();
    expect(s.types()).toEqual(['TransactionAmbiguous', 'TransactionEscalated']);
    expect(s.asked).toEqual([]);
  });
});

describe('a Daraja C2B confirmation from an address the allow-list admits', () => {
  it.each([
    ['enforce', false],
    ['log-only', false],
    ['log-only', true],
  ] as const)('settles at once (list %s, api %s): TransactionSucceeded', async (mode, api) => {
    const s = setup({ mode, api });
    expect(await s.post(DARAJA_IP)).toBe(200);
    expect(s.types()).toContain('TransactionSucceeded');
    expect((await s.transaction())?.status).toBe('SUCCEEDED');
  });
});

describe('a Daraja STK failure from an address the allow-list did not admit', () => {
  const STK = 'ws_CO_191220191020363925';
  it.each([
    [true, 'PENDING'],
    [false, 'FAILED'],
  ] as const)(
    'api %s: the payment is %s (a forged failure cannot fail it where Daraja can be asked)',
    async (api, status) => {
      // Prepare
      const s = setup({ mode: 'log-only', api });
      await s.store.createTransaction(
        registered({
          key: { provider: 'daraja', account: 'ke', reference: STK },
          kind: 'stk',
          amount: { value: '1', currency: 'KES' },
          externalId: undefined,
        }),
      );
      // Act
      expect(await s.post(FORGER_IP, 'stk', fixture('stk-cancelled').replace(/ws_CO_\w+/, STK))).toBe(200);
      // Assess
      const tx = await s.store.getTransaction({ provider: 'daraja', account: 'ke', reference: STK });
      expect(tx?.status).toBe(status);
    },
  );
});

describe('a person resolving an unconfirmed C2B confirmation', () => {
  const ann: Actor = { id: 'ann', name: 'Ann', email: null, role: 'operator', via: 'token' };
  const key = { provider: 'daraja', account: 'ke', reference: TRANS_ID };
  const succeeded = (extra: Record<string, unknown> = {}) => ({
    status: 'SUCCEEDED',
    note: 'the M-Pesa statement shows it',
    ...extra,
  });

  it('must state the amount of a success: the forger’s figure is not what TransactionSucceeded carries', async () => {
    // Prepare: the relay holds no amount, only the unauthenticated body's claim of 10 KES.
    const s = setup({ mode: 'log-only' });
    await s.post(FORGER_IP);
    // Act
    const refused = resolveOrRequest(s.services, key, succeeded(), ann);
    // Assess: refused naming what to state and what the unconfirmed evidence claims; nothing published.
    await expect(refused).rejects.toThrow(SchemaValidationError);
    await expect(refused).rejects.toThrow(/amount is required .*unconfirmed evidence claims 10 KES/);
    expect(s.types()).toEqual(['TransactionAmbiguous']);
    expect((await s.transaction())?.status).toBe('AMBIGUOUS');
  });

  it('publishes the stated amount in the account’s currency', async () => {
    // Prepare
    const s = setup({ mode: 'log-only' });
    await s.post(FORGER_IP);
    // Act
    const outcome = await resolveOrRequest(s.services, key, succeeded({ amount: '10' }), ann);
    // Assess
    expect(outcome.resolved).toBe(true);
    expect(s.events('TransactionSucceeded')[0]?.data).toMatchObject({
      amount: { value: '10', currency: 'KES' },
    });
  });

  it('needs no amount to resolve it FAILED', async () => {
    const s = setup({ mode: 'log-only' });
    await s.post(FORGER_IP);
    await resolveOrRequest(
      s.services,
      key,
      { status: 'FAILED', note: 'no such payment on the statement' },
      ann,
    );
    expect(s.types()).toContain('TransactionFailed');
  });

  it('above the four-eyes limit, refuses a success without amount before any approval waits', async () => {
    // Prepare
    const s = setup({ mode: 'log-only', resolveLimit: '5' });
    await s.post(FORGER_IP);
    // Act
    await expect(resolveOrRequest(s.services, key, succeeded(), ann)).rejects.toThrow(/amount is required/);
    // Assess: no request for a second person to approve something that could never apply.
    expect(await s.store.listApprovals(10)).toEqual([]);
    expect((await resolveOrRequest(s.services, key, succeeded({ amount: '10' }), ann)).resolved).toBe(false);
  });
});
