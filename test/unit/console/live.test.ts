/**
 * The console's stream follower (console/live.ts) and back-off (console/connection.ts), with real
 * ReadableStreams standing in for the relay's answer: "live" only while the stream speaks, a silent
 * stream given up and opened again asking for what it missed, a relay that does not stream polled.
 */
import { describe, expect, it, vi } from 'vitest';
import { backoffMs, BACKOFF } from '../../../console/connection';
import { followStream, type LiveState } from '../../../console/live';

function sse(): { response: Response; push: (text: string) => void } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return {
    response: new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    push: (text) => controller.enqueue(new TextEncoder().encode(text)),
  };
}

describe('the console back-off', () => {
  it('doubles from one second and stops growing at thirty', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 20].map(backoffMs)).toEqual([
      1000,
      2000,
      4000,
      8000,
      16000,
      BACKOFF.maxMs,
      BACKOFF.maxMs,
      BACKOFF.maxMs,
    ]);
  });
});

describe('the event stream follower', () => {
  it('is live while the stream speaks, hands on each change, and after silence reconnects with the last event id', async () => {
    // Prepare: a first stream that sends one change and then nothing, a second that stays open.
    const first = sse();
    const second = sse();
    const opened: Record<string, string>[] = [];
    const states: LiveState[] = [];
    const changes: unknown[] = [];
    const answers = [first.response, second.response];
    // Act
    const follower = followStream({
      open: (headers) => {
        opened.push(headers);
        return Promise.resolve(answers.shift()!);
      },
      onChange: (data) => changes.push(data),
      onState: (state) => states.push(state),
      onPoll: () => expect.fail('a stream that answers is not polled'),
      backoffMs: () => 0,
      staleMs: 200,
    });
    first.push(
      ': connected\n\nevent: transaction\nid: 2026-11-29T07:00:00.000Z\ndata: {"reference":"r1"}\n\n',
    );
    // Assess: the change arrived; silence past staleMs closed the first stream and opened a second one.
    await vi.waitFor(() => expect(opened).toHaveLength(2), { timeout: 10_000, interval: 20 });
    follower.stop();
    expect(changes).toEqual([{ reference: 'r1' }]);
    expect(states.slice(0, 4)).toEqual(['connecting', 'live', 'offline', 'connecting']);
    expect(opened[1]).toMatchObject({ 'last-event-id': '2026-11-29T07:00:00.000Z' });
  });

  it('polls instead when the relay does not stream (404) and never says live', async () => {
    const states: LiveState[] = [];
    let polled = false;
    followStream({
      open: () => Promise.resolve(new Response('{}', { status: 404 })),
      onChange: () => undefined,
      onState: (state) => states.push(state),
      onPoll: () => void (polled = true),
      backoffMs: () => 0,
      staleMs: 1000,
    });
    await vi.waitFor(() => expect(polled).toBe(true));
    expect(states).not.toContain('live');
  });

  it('says offline, not live, not live, while the relay does not answer', async () => {
    const states: LiveState[] = [];
    let opens = 0;
    const follower = followStream({
      open: () => {
        opens++;
        return Promise.reject(new TypeError('Failed to fetch'));
      },
      onChange: () => undefined,
      onState: (state) => states.push(state),
      onPoll: () => undefined,
      backoffMs: () => 0,
      staleMs: 1000,
    });
    await vi.waitFor(() => expect(opens).toBeGreaterThanOrEqual(2));
    follower.stop();
    expect(states).toContain('offline');
    expect(states).not.toContain('live');
  });
});
