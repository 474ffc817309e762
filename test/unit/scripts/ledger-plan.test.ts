import { describe, expect, it } from 'vitest';
import {
  drawFaults,
  FLOWS,
  neverFinalFlows,
  planTransactions,
  seededRandom,
} from '../../../scripts/ledger/plan';
import { parseFaults } from '../../../simulator/core/faults';

const TIMING = { momoSandboxBase: '46733123450', momoApprovalWindowMs: 30_000 };
const OPTIONS = {
  transactions: 400,
  drop: 0.3,
  duplicate: 0.2,
  status5xx: 0.1,
  neverFinal: 0.05,
  failure: 0.3,
  expiresInSeconds: 20,
};

describe('ledger plan', () => {
  it('is the same for the same seed and covers every flow', () => {
    const a = planTransactions(OPTIONS, TIMING, seededRandom(42));
    const b = planTransactions(OPTIONS, TIMING, seededRandom(42));
    expect(a).toEqual(b);
    for (const flow of FLOWS) expect(a.some((p) => p.flow === flow)).toBe(true);
    expect(new Set(a.map((p) => p.expected))).toEqual(new Set(['SUCCEEDED', 'FAILED', 'EXPIRED']));
  });

  it('draws the faults near the asked probabilities, as valid X-Sim-Fault specs', () => {
    const plan = planTransactions({ ...OPTIONS, transactions: 4000 }, TIMING, seededRandom(1));
    const share = (test: (f: ReturnType<typeof parseFaults>) => boolean) =>
      plan.filter((p) => test(parseFaults(p.faults))).length / plan.length;
    expect(share((f) => f.drop === true)).toBeCloseTo(0.3, 1);
    // repeat is drawn only when the callback is not dropped: 0.7 × 0.2
    expect(share((f) => (f.repeat ?? 0) >= 2)).toBeCloseTo(0.14, 1);
    expect(share((f) => f.status5xx !== undefined && (f.status5xxTimes ?? 0) >= 1)).toBeCloseTo(0.1, 1);
    expect(plan.every((p) => !(parseFaults(p.faults).drop && parseFaults(p.faults).repeat))).toBe(true);
  });

  it('registers the never-final ones with the short window and expects EXPIRED', () => {
    const plan = planTransactions(OPTIONS, TIMING, seededRandom(3));
    const never = plan.filter((p) => p.intent === 'never-final');
    expect(never.length).toBeGreaterThan(0);
    for (const p of never) {
      expect(p.expected).toBe('EXPIRED');
      expect(p.options.expires).toBe('20');
      expect(['momo pay', 'airtel pay']).toContain(p.flow);
    }
    expect(plan.filter((p) => p.intent !== 'never-final').every((p) => p.options.expires === undefined)).toBe(
      true,
    );
  });

  it('uses MoMo Ongoing/Delayed only when the approval window outlives the transaction window', () => {
    expect(neverFinalFlows(TIMING, 20)).toEqual(['momo pay', 'airtel pay']);
    expect(neverFinalFlows({ ...TIMING, momoApprovalWindowMs: 3000 }, 20)).toEqual(['airtel pay']);
    const plan = planTransactions(
      { ...OPTIONS, neverFinal: 0.5 },
      { ...TIMING, momoApprovalWindowMs: 3000 },
      seededRandom(5),
    );
    expect(plan.filter((p) => p.intent === 'never-final').every((p) => p.flow === 'airtel pay')).toBe(true);
  });

  it('draws no fault at probability 0 and every fault at 1', () => {
    const random = seededRandom(9);
    expect(drawFaults({ drop: 0, duplicate: 0, status5xx: 0 }, random)).toBe('');
    expect(drawFaults({ drop: 1, duplicate: 1, status5xx: 1 }, random)).toMatch(
      /^drop,status-5xx=50[023],status-5xx-times=[12]$/,
    );
    expect(drawFaults({ drop: 0, duplicate: 1, status5xx: 0 }, random)).toMatch(/^repeat=[23]$/);
  });
});
