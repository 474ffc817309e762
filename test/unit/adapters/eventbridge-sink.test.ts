import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  batchEntries,
  EventBridgeSink,
  EventPublishError,
  EventTooLargeError,
  entrySize,
  MAX_BYTES_PER_CALL,
} from '../../../shared/adapters/events/eventbridge-sink';
import { buildEvent, type EventEnvelope } from '../../../shared/domain/events';

const eventBridge = mockClient(EventBridgeClient);
// The mock patches the client class every later file of this worker shares: undo it.
afterAll(() => eventBridge.restore());
afterEach(() => eventBridge.reset());

function event(n: number, padding = 0): EventEnvelope {
  return buildEvent(
    'TransactionSucceeded',
    `momo:demo:${n}`,
    'SUCCEEDED',
    'callback',
    '2026-11-21T10:00:00.000Z',
    {
      reference: String(n),
      padding: 'x'.repeat(padding),
    },
  );
}

function sink(maxAttempts = 3) {
  return new EventBridgeSink(new EventBridgeClient({ region: 'eu-west-1' }), {
    busName: 'relay-bus',
    source: 'mobile-money.relay',
    maxAttempts,
    baseDelayMs: 1,
  });
}

describe('EventBridgeSink', () => {
  it('sends each event with the configured bus, source, detail-type and the envelope as detail', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: '1' }] });
    await sink().publish([event(1)]);
    const input = eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input;
    expect(input.Entries).toHaveLength(1);
    expect(input.Entries![0]).toMatchObject({
      EventBusName: 'relay-bus',
      Source: 'mobile-money.relay',
      DetailType: 'TransactionSucceeded',
    });
    expect(JSON.parse(input.Entries![0]!.Detail!)).toEqual(event(1));
  });

  it('splits 25 events into calls of at most 10 entries', async () => {
    eventBridge
      .on(PutEventsCommand)
      .callsFake((input) => ({ FailedEntryCount: 0, Entries: input.Entries.map(() => ({ EventId: 'x' })) }));
    await sink().publish(Array.from({ length: 25 }, (_, i) => event(i)));
    expect(eventBridge.commandCalls(PutEventsCommand).map((c) => c.args[0].input.Entries!.length)).toEqual([
      10, 10, 5,
    ]);
  });

  it('keeps every call under 256 KB', async () => {
    const big = Array.from({ length: 5 }, (_, i) => event(i, 100 * 1024));
    const batches = batchEntries(big.map((e) => sink().toEntry(e)));
    expect(batches.map((b) => b.length)).toEqual([2, 2, 1]);
    for (const batch of batches)
      expect(batch.reduce((n, e) => n + entrySize(e), 0)).toBeLessThanOrEqual(MAX_BYTES_PER_CALL);
  });

  it('refuses an event that can never fit instead of looping', async () => {
    await expect(sink().publish([event(1, MAX_BYTES_PER_CALL)])).rejects.toBeInstanceOf(EventTooLargeError);
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(0);
  });

  it('resends only the entries PutEvents reports as failed', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce({
        FailedEntryCount: 1,
        Entries: [
          { EventId: 'a' },
          { ErrorCode: 'ThrottlingException', ErrorMessage: 'slow down' },
          { EventId: 'c' },
        ],
      })
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'b' }] });
    await sink().publish([event(1), event(2), event(3)]);
    const calls = eventBridge.commandCalls(PutEventsCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.args[0].input.Entries!.map((e) => JSON.parse(e.Detail!).data.reference)).toEqual(['2']);
  });

  it('resends the whole call when PutEvents counts failures but names none, instead of dropping them', async () => {
    // Prepare: an answer whose entries do not line up with the request (missing, or none with an ErrorCode)
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce({ FailedEntryCount: 2 })
      .resolvesOnce({ FailedEntryCount: 1, Entries: [{ EventId: 'a' }, { EventId: 'b' }] })
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'a' }, { EventId: 'b' }] });

    // Act
    await sink().publish([event(1), event(2)]);

    // Assess
    const sent = eventBridge
      .commandCalls(PutEventsCommand)
      .map((call) => call.args[0].input.Entries!.map((e) => JSON.parse(e.Detail!).data.reference));
    expect(sent).toEqual([
      ['1', '2'],
      ['1', '2'],
      ['1', '2'],
    ]);
  });

  it('names every event of a call whose failures it could never tell apart', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 1, Entries: [] });
    const failure = sink(2).publish([event(4), event(5)]);
    await expect(failure).rejects.toMatchObject({
      failedEventIds: [event(4).metadata.id, event(5).metadata.id],
    });
  });

  it('gives up after the configured attempts and names the events that were not published', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure' }] });
    const failure = sink(3).publish([event(7)]);
    await expect(failure).rejects.toBeInstanceOf(EventPublishError);
    await expect(failure).rejects.toMatchObject({ failedEventIds: [event(7).metadata.id] });
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(3);
  });

  it('surfaces a throttled call after the SDK retry strategy gives up', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), {
      name: 'ThrottlingException',
      $metadata: { httpStatusCode: 400 },
    });
    eventBridge.on(PutEventsCommand).rejects(throttled);
    await expect(sink().publish([event(1)])).rejects.toThrow('Rate exceeded');
  });
});
