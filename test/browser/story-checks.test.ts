/**
 * Issue 30 item 5 in a real Chromium on the real local relay and the simulator (MoMo's status API): an
 * ambiguous payout the provider has never heard of is asked about again and again; its story shows the
 * run of identical status checks as one line ("13 checks, 10:02–10:40, all 'not found'") with the
 * question and MoMo's answer inline, instead of one long entry per check behind "Show body" clicks.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_ACTOR, ADMIN_TOKEN } from '../helpers/relay';
import {
  type RelayWithSimulator,
  simulatedDemoConfig,
  startRelayWithSimulator,
} from '../helpers/relay-simulator';
import { useChromium, WAIT_MS } from './harness';

const CHECKS = 13;
/** MoMo's own callback for a successful transfer (a payout), as the provider sends it: unsigned. */
const TRANSFER_CALLBACK = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../fixtures/momo/transfer-successful.json'), 'utf8'),
);
let pair: RelayWithSimulator;
let page: Page;
const chromium = useChromium();

beforeAll(async () => {
  const eventsFile = join(mkdtempSync(join(tmpdir(), 'story-checks-')), 'events.ndjson');
  pair = await startRelayWithSimulator({
    eventsFile,
    configFor: (relayUrl, simUrl) =>
      simulatedDemoConfig(relayUrl, simUrl, {
        eventsFile,
        // A check every poll (a second between checks, the least the relay waits, is 0.05 s at this
        // scale), so that a run of identical answers builds up in seconds.
        reconciliation: {
          timeScale: 0.05,
          pollIntervalSeconds: 0.2,
          schedules: { momo: { transfer: { firstCheckSeconds: 0, backoffSeconds: [1] } } },
        },
      }),
  });
  page = await chromium.newPage({ forTheFile: true });
});

// The test stops the poller once its run of checks is built; a retry builds its own run.
let pollerStopped = false;
afterEach(() => {
  if (pollerStopped) pair.relay.poller.start();
  pollerStopped = false;
});

afterAll(async () => {
  await pair?.sim.close();
  await pair?.relay.stop();
});

describe("an ambiguous payout's status checks in the story", () => {
  it("shows 13 identical checks as one line, 'all not found', with the question and the answer inline", async ({
    signal,
  }) => {
    // Prepare: a payout registered with the relay but never sent to MoMo (so MoMo's status API answers
    // "not found"), and an unsigned callback claiming it succeeded: AMBIGUOUS until MoMo confirms.
    const { relay } = pair;
    const reference = randomUUID();
    const registered = await relay.admin('POST', '/v1/transactions', {
      provider: 'momo',
      account: 'demo',
      kind: 'transfer',
      reference,
      amount: TRANSFER_CALLBACK.amount,
      currency: TRANSFER_CALLBACK.currency,
    });
    expect(registered.status).toBe(201);
    // Sent again while the relay answers 503 (storage busy on a loaded machine), as a provider re-sends.
    await vi.waitFor(
      async () => {
        const callback = await fetch(registered.body.callbackUrl, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...TRANSFER_CALLBACK, externalId: reference }),
        });
        expect(callback.status, await callback.text()).toBeLessThan(300);
      },
      { timeout: WAIT_MS, interval: 500 },
    );
    const path = `/v1/transactions/momo/demo/${reference}`;
    await vi.waitFor(
      async () => {
        const answer = (await relay.admin('GET', path)).body;
        expect(answer.transaction.status).toBe('AMBIGUOUS');
        expect(answer.reconciliation.statusChecks).toBeGreaterThanOrEqual(CHECKS);
      },
      { timeout: WAIT_MS * 2, interval: 200 },
    );
    // The run is built: the poller (a cycle every 0.2 s, checks and all) would only make it longer while
    // the console is read, at the CPU and DynamoDB Local requests of five cycles a second. Not by an
    // attempt that timed out and ran on (its signal aborted): its retry is building a run of its own.
    if (!signal.aborted) {
      pollerStopped = true;
      await relay.poller.stop();
    }

    // Act
    await page.goto(`${relay.url}/console/`);
    await page.getByLabel('bearer token').fill(ADMIN_TOKEN);
    await page.getByLabel('your name').fill(ADMIN_ACTOR);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /Transactions/ }).waitFor();
    await page.goto(`${relay.url}/console/#/tx/momo/demo/${reference}`);
    await page.getByTestId('story-title').getByText('AMBIGUOUS').waitFor();
    const runs = page.getByTestId('entry-checks');
    await runs.first().waitFor();
    const lines = await runs.allInnerTexts();
    const summary = (await runs.first().locator('strong').textContent()) ?? '';
    const shown = Number(/^(\d+) checks/.exec(summary)?.[1]);

    // Assess: one line for the whole run, every check counted, the question and MoMo's answer on it.
    expect(lines).toHaveLength(1);
    expect(shown).toBeGreaterThanOrEqual(CHECKS);
    expect(summary).toMatch(/^\d+ checks, \d\d:\d\d–\d\d:\d\d, all 'not found'$/);
    expect(lines[0]).toContain(`Asked: GET /disbursement/v1_0/transfer/${reference}`);
    expect(lines[0]).toMatch(/answered not-found/);
    expect(await page.getByText('Show body').count()).toBeLessThanOrEqual(1);
  });
});
