import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { registerWithRelay, relayTransaction, type SimContext } from '../../../scripts/sim/core';

/**
 * A loaded relay answers 503 STORAGE_UNAVAILABLE ("send it again later"). The simulated partner has already
 * initiated the payout at the provider: giving up left the money moved and the relay without the payout,
 * two breaks nothing explained in `npm run ledger:day` (a B2C payout under load). It sends the request again.
 */
const BUSY = JSON.stringify({ error: { code: 'STORAGE_UNAVAILABLE', message: 'send it again later' } });
let close: (() => void) | undefined;
afterEach(() => close?.());

/** A relay that answers each route 503 `busy` times, then as a relay that stored the request. */
async function busyRelay(busy: number) {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    const n = asked.filter((a) => a === `${req.method} ${req.url}`).length;
    res.setHeader('content-type', 'application/json');
    if (n <= busy) return void res.writeHead(503).end(BUSY);
    if (req.method === 'POST')
      return void res
        .writeHead(201)
        .end(JSON.stringify({ transaction: { status: 'PENDING' }, callbackUrl: 'cb' }));
    res.writeHead(200).end(JSON.stringify({ transaction: { status: 'PENDING', reason: null }, history: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => server.close();
  const ctx = {
    relayUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    adminToken: 'demo-admin-token',
    pollMs: 1,
  } as SimContext;
  return { ctx, asked };
}

const REGISTRATION = { provider: 'daraja', account: 'demo', kind: 'b2c', reference: 'SIM-B2C-1' };

describe('the simulated partner and a relay that is busy storing', () => {
  it('registers again and reads again after 503, as the relay asks', async () => {
    // Prepare
    const { ctx, asked } = await busyRelay(2);

    // Act
    const registered = await registerWithRelay(ctx, REGISTRATION);
    const view = await relayTransaction(ctx, 'daraja', 'demo', 'SIM-B2C-1');

    // Assess
    expect(registered).toEqual({ callbackUrl: 'cb', status: 'PENDING' });
    expect(view?.status).toBe('PENDING');
    expect(asked).toEqual([
      ...Array(3).fill('POST /v1/transactions'),
      ...Array(3).fill('GET /v1/transactions/daraja/demo/SIM-B2C-1'),
    ]);
  });

  it('gives up after three more tries, naming the 503', async () => {
    // Prepare
    const { ctx, asked } = await busyRelay(10);

    // Act
    const registering = registerWithRelay(ctx, REGISTRATION);

    // Assess
    await expect(registering).rejects.toThrow(/503/);
    expect(asked).toHaveLength(4);
  });
});
