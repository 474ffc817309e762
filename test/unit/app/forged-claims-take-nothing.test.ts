/**
 * A claim takes nothing (docs/guarantees.md): a forged Daraja body from an address the account's source-IP
 * list did not admit (`log-only`) is held as a claim, and the report that settles the payment (Daraja's own
 * confirmation, a pulled statement row, the STK query) never publishes the forger's bill reference (the
 * account a C2B payment credits) or payer. Found by ingest-interleavings.property.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  c2bBody,
  DARAJA_IP,
  FORGER_IP,
  GEN_RECEIPT,
  ingestWorld,
  OTHER_PHONE,
  REG_PHONE,
  statusResultBody,
  stkBody,
} from './ingest-world';

const paid = { outcome: 'paid' as const, amount: '5' };
/** A C2B confirmation of the genuine receipt, from the forger: its own bill reference and number. */
const forgedC2b = () =>
  c2bBody({ receipt: GEN_RECEIPT, amount: '5', phone: OTHER_PHONE }).replace('ACC-001', 'ATTACKER-ACC');
const success = (w: ReturnType<typeof ingestWorld>) =>
  w.store.published.find((e) => e.metadata.type === 'TransactionSucceeded') as
    { data: { externalId?: string | null; party?: { id?: string } | null } } | undefined;

describe('a forged claim gives the payment it names nothing', () => {
  it("Daraja's own C2B confirmation settles with its bill reference, not the forger's named first", async () => {
    // Prepare
    const w = ingestWorld({ mode: 'log-only', truth: paid });
    expect(await w.post('c2b/confirmation', forgedC2b(), FORGER_IP)).toBe(200);
    // Act
    const genuine = c2bBody({ receipt: GEN_RECEIPT, amount: '5', phone: REG_PHONE });
    expect(await w.post('c2b/confirmation', genuine, DARAJA_IP)).toBe(200);
    // Assess
    expect(success(w)?.data).toMatchObject({ externalId: 'ACC-001' });
  });

  it("a pulled statement row settles the forged payment's claim without the forger's payer or bill reference", async () => {
    // Prepare
    const w = ingestWorld({ mode: 'log-only', truth: paid });
    expect(await w.post('c2b/confirmation', forgedC2b(), FORGER_IP)).toBe(200);
    // Act: Daraja's Pull API, the provider's own record (it names no payer).
    await w.pullRow({ receipt: GEN_RECEIPT, amount: '5' });
    // Assess
    expect(success(w)).toBeDefined();
    expect(success(w)?.data.party?.id).not.toBe(OTHER_PHONE);
    expect(success(w)?.data.externalId).not.toBe('ATTACKER-ACC');
  });

  it('the STK query confirms a push without the payer a forged STK result named', async () => {
    // Prepare: registered with no MSISDN; a forged success from another number.
    const w = ingestWorld({ mode: 'log-only', truth: paid });
    await w.register({ amount: '5' });
    const forged = stkBody({ status: 'paid', amount: '5', receipt: GEN_RECEIPT, phone: OTHER_PHONE });
    expect(await w.post('stk', forged, FORGER_IP)).toBe(200);
    // Act: Daraja's STK query says paid (it names no payer).
    await w.poll();
    // Assess
    expect(success(w)).toBeDefined();
    expect(success(w)?.data.party?.id).not.toBe(OTHER_PHONE);
  });
});

describe('receipt claims a flood cannot push out', () => {
  it("keeps Daraja's own late receipt among the claims after three forged ones, and learns it", async () => {
    // Prepare: the push is registered and the STK query settles it (it names no receipt).
    const w = ingestWorld({ mode: 'log-only', truth: paid });
    await w.register({ amount: '5' });
    for (let i = 0; i < 5 && (await w.tx())?.status !== 'SUCCEEDED'; i++) await w.poll(120_000);
    // Daraja's own STK result, late, from its address: its receipt is a claim to confirm.
    const own = stkBody({ status: 'paid', amount: '5', receipt: GEN_RECEIPT, phone: REG_PHONE });
    expect(await w.post('stk', own, DARAJA_IP)).toBe(200);
    // Act: a forger names three receipts of its own.
    for (let i = 0; i < 3; i++) {
      const forged = stkBody({ status: 'paid', amount: '5', receipt: `QFORGE000${i}`, phone: REG_PHONE });
      await w.post('stk', forged, FORGER_IP);
    }
    // The poller asks; Daraja answers about the receipt it knows.
    for (let i = 0; i < 10 && !(await w.tx())?.providerTransactionId; i++) {
      await w.poll(300_000);
      const asked = w.queries.at(-1);
      if (asked?.body.TransactionID === GEN_RECEIPT)
        await w.post(
          'status/result',
          statusResultBody({
            query: asked,
            receipt: GEN_RECEIPT,
            amount: '5',
            completed: true,
            occasion: asked.body.Occasion as string,
          }),
          DARAJA_IP,
        );
    }
    // Assess
    expect(w.queries.map((q) => q.body.TransactionID)).toContain(GEN_RECEIPT);
    expect((await w.tx())?.providerTransactionId).toBe(GEN_RECEIPT);
  });
});
