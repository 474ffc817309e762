/**
 * Reads must not starve callbacks (issue 27 item 5), over HTTP on the local relay and DynamoDB Local: with
 * as many console event streams open as the relay serves, MoMo callbacks are still acked 200, every
 * stream sees them from the one shared change feed, and one stream more is refused 429 TOO_MANY_STREAMS.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_EVENT_STREAMS } from '../../local/console-events';
import { ADMIN_TOKEN, startTestRelay, type TestRelay } from '../helpers/relay';

const SUCCESS = readFileSync(
  join(import.meta.dirname, '../fixtures/momo/requesttopay-successful.json'),
  'utf8',
);
const refs = Array.from({ length: 6 }, (_, i) => `5d1e7c1a-2d3f-4a5b-8c9d-00000000010${i}`);

let relay: TestRelay;
const aborts: AbortController[] = [];

/** One console's stream: its answer, and the text it has read so far. */
async function openStream() {
  const abort = new AbortController();
  aborts.push(abort);
  const response = await fetch(`${relay.url}/v1/events/stream`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'text/event-stream' },
    signal: abort.signal,
  });
  const stream = { response, text: '' };
  if (response.ok)
    void (async () => {
      try {
        for await (const chunk of response.body!.pipeThrough(new TextDecoderStream())) stream.text += chunk;
      } catch {
        // aborted at the end
      }
    })();
  return stream;
}

beforeAll(async () => {
  relay = await startTestRelay({ accounts: { momo: { demo: { currency: 'EUR', confirmSuccess: false } } } });
  for (const reference of refs) {
    const registered = await relay.admin('POST', '/v1/transactions', {
      provider: 'momo',
      account: 'demo',
      kind: 'requesttopay',
      reference,
      amount: '100',
      currency: 'EUR',
    });
    expect(registered.status).toBe(201);
  }
});
afterAll(async () => {
  for (const abort of aborts) abort.abort();
  await relay?.stop();
});

describe('console event streams beside callbacks', () => {
  it('ack every MoMo callback 200 with the most streams open, show it on every stream, and refuse one stream more with 429', async () => {
    // Prepare: as many streams as the relay serves.
    const streams = await Promise.all(Array.from({ length: MAX_EVENT_STREAMS }, openStream));
    // Act
    const refused = await fetch(`${relay.url}/v1/events/stream?access_token=${ADMIN_TOKEN}`);
    const acks = await Promise.all(
      refs.map((reference) => relay.request('PUT', `/v1/momo/demo/requesttopay/${reference}`, SUCCESS)),
    );
    // Every stream gets every paid transaction (the pump's reads, fanned out): wait for it, not for a time.
    const paidEverywhere = () =>
      streams.every((s) =>
        refs.every((r) => new RegExp(`"reference":"${r}"[^\n]*"status":"SUCCEEDED"`).test(s.text)),
      );
    while (!paidEverywhere()) await relay.pump.poll();
    // Assess
    expect(streams.map((s) => s.response.status)).toEqual(streams.map(() => 200));
    expect(acks.map((a) => a.status)).toEqual(refs.map(() => 200));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await refused.json()).toMatchObject({
      error: { code: 'TOO_MANY_STREAMS', maxStreams: MAX_EVENT_STREAMS },
    });
  });
});
