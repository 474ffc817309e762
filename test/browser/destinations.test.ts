/**
 * Issue 31 items 1 and 5 in a real Chromium on the real local relay (DynamoDB Local): an operator pauses a
 * webhook destination and counts a replay (the dry run) in the console; a viewer is offered neither.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningReceiver, startReceiver } from '../../simulator/receiver/receiver';
import { paidByAirtelCallback } from '../helpers/airtel-payment';
import { useConsoleOnRelay, WAIT_MS } from './harness';

const KEY = 'browser-destinations-airtel-key';
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const PEOPLE = {
  ops: { role: 'operator', token: 'ops-operator-token-0123456789' },
  viv: { role: 'viewer', token: 'viv-viewer-token-0123456789' },
} as const;
let receiver: RunningReceiver;

// The receiver first: the relay's destination names its URL.
beforeAll(async () => {
  receiver = await startReceiver({ port: 0, secret: SECRET, fault: 'none', print: () => undefined });
});
afterAll(async () => receiver?.stop());

const t = useConsoleOnRelay(
  () => ({
    accounts: { airtel: { demo: { callbackKey: KEY, hashMode: 'enforce', country: 'UG', currency: 'UGX' } } },
    destinations: {
      'sample-partner': {
        url: receiver.url,
        signingSecrets: [SECRET],
        allowPrivateAddresses: true,
        filter: { eventTypes: ['TransactionSucceeded'] },
      },
    },
  }),
  PEOPLE,
);

/** An Airtel payment that succeeds by its signed callback: one TransactionSucceeded delivered. */
async function paidAndDelivered(): Promise<string> {
  const reference = await paidByAirtelCallback(t.relay, KEY, 'BR');
  await vi.waitFor(() => expect(receiver.received.filter((r) => r.verified)).toHaveLength(1), {
    timeout: WAIT_MS,
    interval: 100,
  });
  return reference;
}

describe('the destinations view', () => {
  it('lets an operator pause a destination and count a replay before sending; a viewer sees no buttons', async () => {
    // Prepare
    const reference = await paidAndDelivered();
    const ops = await t.signedIn('ops');
    const viv = await t.signedIn('viv');

    // Act
    await ops.goto(`${t.relay.url}/console/#/destinations`);
    const row = ops.getByTestId('destination-row').filter({ hasText: 'sample-partner' });
    await row.getByTestId('destination-pause').click();
    await row.getByTestId('destination-state').getByText('by ops').waitFor();
    await row.getByRole('button', { name: 'Log and replay' }).click();
    await ops.getByTestId('deliveries-table').waitFor();
    const form = ops.getByTestId('replay-form');
    await form.getByLabel(/Transaction/).fill(`airtel/demo/${reference}`);
    await form.getByRole('button', { name: 'Count' }).click();
    const count = await ops.getByTestId('replay-count').innerText();
    await viv.goto(`${t.relay.url}/console/#/destinations`);
    await viv.getByTestId('destination-row').waitFor();

    // Assess
    expect(count).toContain('1 events would be re-sent');
    expect(await ops.getByTestId('replay-send').innerText()).toBe('Replay 1');
    expect(await ops.getByTestId('deliveries-table').innerText()).toContain('delivered');
    const listed = await t.relay.request('GET', '/v1/destinations', undefined, t.as('viv'));
    expect(await row.getByTestId('destination-type').innerText()).toBe('https');
    expect(await row.getByTestId('destination-target').innerText()).toBe(listed.body.destinations[0].url);
    expect(listed.body.destinations[0]).toMatchObject({
      id: 'sample-partner',
      type: 'https',
      state: 'paused',
      pausedBy: 'ops',
    });
    expect(await viv.getByTestId('destination-pause').count()).toBe(0);
    expect(await viv.getByTestId('destination-resume').count()).toBe(0);
    await viv.getByRole('button', { name: 'Log and replay' }).click();
    await viv.getByTestId('deliveries-table').waitFor();
    expect(await viv.getByTestId('replay-form').count()).toBe(0);
    expect(await viv.getByTestId('rotate-form').count()).toBe(0);
  });
});
