/** The dispatcher's answer for paths no route knows: each provider's own 404, in MoMo's chosen spelling. */
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/server';
import { call, startSim } from './helpers';

let sim: Simulator | undefined;

afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('unknown paths', () => {
  const MOMO_PREFIXES = ['collection', 'disbursement', 'remittance', 'apiuser', 'v1_0'];
  for (const prefix of MOMO_PREFIXES) {
    it(`answers an unknown path under /${prefix} with MoMo's 404 {code, message}`, async () => {
      // Prepare
      sim = await startSim();

      // Act
      const r = await call(sim, 'GET', `/${prefix}/v1_0/no-such-operation`);

      // Assess
      expect(r.status).toBe(404);
      expect(r.json).toEqual({ code: 'RESOURCE_NOT_FOUND', message: 'Requested resource was not found.' });
    });
  }

  it('answers an unknown remittance path with the documented spelling RESOURCE NOT FOUND when errorSpelling is seed', async () => {
    // Prepare
    sim = await startSim({ momo: { errorSpelling: 'seed' } });

    // Act
    const r = await call(sim, 'GET', '/remittance/v1_0/no-such-operation');

    // Assess
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ code: 'RESOURCE NOT FOUND', message: 'Requested resource was not found.' });
  });

  it('answers a MoMo path with // with the documented spelling of BAD_REQUEST when errorSpelling is seed', async () => {
    // Prepare
    sim = await startSim({ momo: { errorSpelling: 'seed' } });

    // Act
    const r = await call(sim, 'POST', '/collection//token/');

    // Assess
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('REQUEST REJECTED/ BAD REQUEST');
  });

  it('keeps the generic simulator 404 for a path of no provider', async () => {
    // Prepare
    sim = await startSim({ momo: { errorSpelling: 'seed' } });

    // Act
    const r = await call(sim, 'GET', '/remittances/v1_0/transfer');

    // Assess
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ error: 'NOT_FOUND', message: 'no route for GET /remittances/v1_0/transfer' });
  });
});
