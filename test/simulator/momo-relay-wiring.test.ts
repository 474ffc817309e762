import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMomoStatusApi } from '../../shared/providers/momo/api-client';
import { momoAccountSchema } from '../../shared/providers/momo/schema';
import type { RelayConfig, ResolvedAccount } from '../../shared/config/schema';
import { momoSimulatorWiring } from '../../simulator/momo/relay-wiring';
import type { Simulator } from '../../simulator/server';
import { startSim } from './helpers';
import { create, momoToken } from './momo-helpers';

let sim: Simulator;

beforeEach(async () => {
  sim = await startSim();
});
afterEach(async () => {
  await sim.close();
});

const quiet = { warn: () => undefined, info: () => undefined };

describe('the relay wired to the simulator (npm start -- --simulator)', () => {
  it('asks the simulator about a cash transfer, so an unsigned FAILED is confirmed instead of handed to a person', async () => {
    // Prepare: a cash transfer the simulator accepted, and the MoMo settings the wiring gives the relay.
    const token = await momoToken(sim, 'disbursement');
    const { ref, res } = await create(
      sim,
      token,
      '/disbursement/v2_0/cashtransfer',
      {
        amount: '75',
        currency: 'EUR',
        payee: { partyIdType: 'MSISDN', partyId: '46700000001' },
        externalId: 'cash-1',
        orginatingCountry: 'SE',
        originalAmount: '75',
        originalCurrency: 'EUR',
        payerMessage: 'Cash',
        payeeNote: 'Cash out',
      },
      { product: 'disbursement' },
    );
    expect(res.status).toBe(202);
    const api = momoSimulatorWiring.apiSettings({} as RelayConfig, {} as ResolvedAccount, sim.url);
    const client = createMomoStatusApi(
      {
        provider: 'momo',
        id: 'demo',
        pathSecret: undefined,
        settings: momoAccountSchema.parse({ targetEnvironment: 'sandbox', currency: 'EUR', api }),
      },
      { fetch, now: Date.now, sleep: (ms) => new Promise((r) => setTimeout(r, ms)), log: quiet },
    )!;

    // Act: the relay's own MoMo client asks about it.
    const answer = await client.check({
      kind: 'cashtransfer',
      reference: ref,
      amount: undefined,
      msisdn: undefined,
      externalId: 'cash-1',
      providerTransactionId: undefined,
      attributes: {},
      createdAt: new Date().toISOString(),
      callbackBase: 'http://localhost:3000/v1/momo/demo',
    });

    // Assess: the simulator answered about that transfer; "unsupported" would send it to a person.
    expect(answer.type === 'report' || answer.type === 'pending', JSON.stringify(answer)).toBe(true);
  });
});
