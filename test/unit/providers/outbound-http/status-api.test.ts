import { describe, expect, it, vi } from 'vitest';
import {
  ConcurrencyLimit,
  CredentialsGate,
  guardedStatusApi,
} from '../../../../shared/providers/outbound-http';
import type { StatusAnswer, StatusQuery } from '../../../../shared/providers/types';

const query: StatusQuery = {
  kind: 'requesttopay',
  reference: '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f',
} as StatusQuery;

function guards(now = () => 0) {
  const warnings: string[] = [];
  const gate = new CredentialsGate({
    provider: 'momo',
    account: 'demo',
    now,
    log: { info() {}, warn: (message: string) => void warnings.push(message) },
    cooldownMs: 60_000,
  });
  return { gate, limit: new ConcurrencyLimit(1), warnings };
}

describe('guardedStatusApi', () => {
  it('passes a credentials refusal through the account gate: one warning, a cooldown on the answer', async () => {
    // Prepare
    const g = guards();
    const refused: StatusAnswer = { type: 'error', error: 'credentials', detail: 'HTTP 401' };
    const api = guardedStatusApi(g, async () => refused, {});

    // Act
    const first = await api.check(query);
    const second = await api.check(query);

    // Assess
    expect(first).toMatchObject({ type: 'error', error: 'credentials', retryAfterMs: 60_000 });
    expect(second).toMatchObject({ type: 'error', error: 'credentials' });
    expect(g.warnings).toHaveLength(1);
  });

  it('answers anything else as the provider check classified it', async () => {
    // Prepare
    const g = guards();
    const pending: StatusAnswer = { type: 'pending', detail: 'PENDING' };
    const api = guardedStatusApi(g, async () => pending, { tokenRequests: () => 3 });

    // Act
    const answer = await api.check(query);

    // Assess
    expect(answer).toEqual(pending);
    expect(api.tokenRequests()).toBe(3);
    expect(g.warnings).toEqual([]);
  });

  it('runs the checks of one account under its concurrency cap', async () => {
    // Prepare
    const g = guards();
    let running = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    const api = guardedStatusApi(
      g,
      async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
        return { type: 'pending', detail: 'PENDING' } as StatusAnswer;
      },
      {},
    );

    // Act
    const checks = [api.check(query), api.check(query), api.check(query)];
    for (let i = 0; i < 3; i++) {
      await vi.waitFor(() => expect(releases.length).toBe(i + 1));
      releases[i]!();
    }
    await Promise.all(checks);

    // Assess
    expect(most).toBe(1);
  });
});
