/**
 * Issue 31 items 1 and 5 for an sqs destination, in a real Chromium on the real local relay (DynamoDB
 * Local): the events go through the real SQS client to a local SQS endpoint (test/helpers/
 * delivery-sqs-endpoint.ts, an emulator's addressing); an operator sees the destination with its queue
 * and the partner's role, pauses and resumes it, and finds its deliveries in the transaction's story. No
 * signing secret reaches a page or an answer.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paidByAirtelCallback } from '../helpers/airtel-payment';
import { LocalAwsEndpoint } from '../helpers/delivery-sqs-endpoint';
import { ADMIN_TOKEN, startTestRelay, TEST_SEARCH_KEY, type TestRelay } from '../helpers/relay';
import { useChromium, WAIT_MS } from './harness';

const KEY = 'browser-destinations-sqs-airtel-key';
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const ROLE = 'arn:aws:iam::210987654321:role/momo-relay-deliveries';
const QUEUE_ARN = 'arn:aws:sqs:af-south-1:210987654321:momo-events';
const OPS_TOKEN = 'ops-sqs-operator-token-0123456789';
let relay: TestRelay;
let endpoint: LocalAwsEndpoint;
const chromium = useChromium();

beforeAll(async () => {
  // npm start signs emulator requests with the placeholder key the DynamoDB Local client uses.
  endpoint = await new LocalAwsEndpoint('emulator')
    .acceptCredentials({ accessKeyId: 'local', secretAccessKey: 'local' })
    .createQueue('momo-events')
    .start();
  relay = await startTestRelay({
    management: {
      auth: 'bearer',
      bearerToken: ADMIN_TOKEN,
      searchKey: TEST_SEARCH_KEY,
      tokens: [{ name: 'ops', role: 'operator', token: OPS_TOKEN }],
    },
    accounts: { airtel: { demo: { callbackKey: KEY, hashMode: 'enforce', country: 'UG', currency: 'UGX' } } },
    destinations: {
      'partner-erp': {
        type: 'sqs',
        queue: QUEUE_ARN,
        roleArn: ROLE,
        externalId: 'relay-7f3a9c',
        endpointUrl: endpoint.url,
        signingSecrets: [SECRET],
        filter: { eventTypes: ['TransactionSucceeded'] },
      },
    },
  });
});

afterAll(async () => {
  await relay?.stop();
  await endpoint?.stop();
});

/** The references of the events on the partner's queue, in the order they arrived. */
const queued = () =>
  endpoint.messages.map((m) => (JSON.parse(m.body) as { data: { reference: string } }).data.reference);

/** An Airtel payment that succeeds by its signed callback: one TransactionSucceeded published. */
const paid = () => paidByAirtelCallback(relay, KEY, 'SQ');

async function signedIn(): Promise<Page> {
  const page = await chromium.newPage();
  await page.goto(`${relay.url}/console/#/signin`);
  await page.getByLabel('bearer token').fill(OPS_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('who').getByText('ops').waitFor();
  return page;
}

describe('an sqs destination in the console', () => {
  it('is listed with its queue and the partner role, paused and resumed by an operator, its deliveries in the story, never a secret', async () => {
    // Prepare
    const first = await paid();
    await vi
      .waitFor(() => expect(queued()).toEqual([first]), { timeout: WAIT_MS, interval: 100 })
      .catch(async (error: Error) => {
        // Say why: the destination's state and its delivery log, as the relay recorded them.
        const states = await relay.admin('GET', '/v1/destinations');
        const log = await relay.admin('GET', '/v1/destinations/partner-erp/deliveries');
        throw new Error(
          `${error.message}\ndestinations: ${JSON.stringify(states.body)}\ndeliveries: ${JSON.stringify(log.body)}`,
        );
      });
    const ops = await signedIn();
    await ops.goto(`${relay.url}/console/#/destinations`);
    const row = ops.getByTestId('destination-row').filter({ hasText: 'partner-erp' });

    // Act
    await row.getByTestId('destination-pause').click();
    await row.getByTestId('destination-state').getByText('by ops').waitFor();
    const whilePaused = await paid();
    const queuedWhilePaused = queued();
    await row.getByTestId('destination-resume').click();
    await row.getByTestId('destination-pause').waitFor();
    await vi.waitFor(() => expect(queued()).toEqual([first, whilePaused]), {
      timeout: WAIT_MS,
      interval: 100,
    });
    const shown = {
      type: await row.getByTestId('destination-type').innerText(),
      target: await row.getByTestId('destination-target').innerText(),
      role: await row.getByTestId('destination-role').innerText(),
    };
    const listPage = await ops.content();
    await ops.goto(`${relay.url}/console/#/tx/airtel/demo/${whilePaused}`);
    const story = ops.getByTestId('story-deliveries');
    await story.getByText('partner-erp').waitFor();

    // Assess
    expect(shown).toEqual({ type: 'sqs', target: QUEUE_ARN, role: ROLE });
    // Held while paused: the second payment reached the queue only after the resume.
    expect(queuedWhilePaused).toEqual([first]);
    expect(await story.innerText()).toMatch(
      /TransactionSucceeded → partner-erp · attempt 1: queued delivered/,
    );
    const listed = await relay.request('GET', '/v1/destinations', undefined, {
      authorization: `Bearer ${OPS_TOKEN}`,
    });
    expect(listed.body.destinations).toEqual([
      expect.objectContaining({
        id: 'partner-erp',
        type: 'sqs',
        url: QUEUE_ARN,
        role: ROLE,
        state: 'active',
      }),
    ]);
    const secretPart = SECRET.slice('whsec_'.length);
    for (const text of [listPage, await ops.content(), JSON.stringify(listed.body)]) {
      expect(text).not.toContain('whsec_');
      expect(text).not.toContain(secretPart);
    }
  });
});
