/**
 * Counts are asked again at most once per this interval, however many live events come in (one per event
 * made 53 counts requests for 12 changes): the events of an interval share one refresh, at its end. Apart
 * from the views (no DOM here) so that `npm run bench` models the console with the same number.
 */
export const COUNTS_REFRESH_MS = 5000;

/**
 * What the list's indicator says: `live` only while the event stream is open and has spoken within
 * EVENT_STREAM_STALE_MS (its heartbeat comes every EVENT_STREAM_HEARTBEAT_MS); `polling` while the list is
 * asked every 5 s and the last ask was answered; `offline` otherwise (connecting again, with back-off).
 */
export type LiveState = 'connecting' | 'live' | 'polling' | 'offline';

export interface StreamFollower {
  stop(): void;
}

/**
 * Reads the local event stream (Server-Sent Events read with fetch, so the token stays in a header) and
 * hands each change on. A stream that ends, fails or falls silent is closed and opened again after a
 * back-off, asking for what it missed (`Last-Event-ID`); a relay that does not stream (404, the cloud) or
 * serves no more streams (429) leaves the follower to poll (`onPoll`). `stop()` closes the connection: a
 * view that is left must not keep one (the browser's per-host limit would slow every request).
 */
export function followStream(options: {
  open: (headers: Record<string, string>, signal: AbortSignal) => Promise<Response>;
  onChange: (data: unknown) => void;
  onState: (state: LiveState) => void;
  onPoll: () => void;
  backoffMs: (attempt: number) => number;
  staleMs: number;
}): StreamFollower {
  let stopped = false;
  let controller: AbortController | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let watchdog: ReturnType<typeof setInterval> | undefined;
  let lastEventId: string | undefined;
  let attempts = 0;

  const connect = async () => {
    if (stopped) return;
    controller = new AbortController();
    const signal = controller.signal;
    options.onState('connecting');
    let heardAt = Date.now();
    try {
      const response = await options.open(
        { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        signal,
      );
      if (response.status === 404 || response.status === 429) {
        void response.body?.cancel();
        options.onPoll();
        return;
      }
      if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
      options.onState('live');
      attempts = 0;
      // Silent for longer than two heartbeats: the connection is gone even if the socket says otherwise.
      watchdog = setInterval(
        () => {
          if (Date.now() - heardAt > options.staleMs) controller?.abort();
        },
        Math.max(1000, options.staleMs / 4),
      );
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      // Aborting fetch's signal ends its body; cancelling the reader as well ends any stream's.
      signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined));
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done || stopped) break;
        heardAt = Date.now();
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const chunk = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = chunk.split('\n');
          const id = lines.find((l) => l.startsWith('id:'));
          if (id) lastEventId = id.slice(3).trim();
          const data = lines
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('\n');
          if (!data) continue; // a comment: the heartbeat
          try {
            options.onChange(JSON.parse(data));
          } catch {
            // Not JSON: nothing to show.
          }
        }
      }
    } catch {
      // Closed, failed or aborted: below.
    } finally {
      if (watchdog) clearInterval(watchdog);
      watchdog = undefined;
    }
    if (stopped) return;
    options.onState('offline');
    retry = setTimeout(() => void connect(), options.backoffMs(attempts++));
  };
  void connect();
  return {
    stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      if (watchdog) clearInterval(watchdog);
      controller?.abort();
    },
  };
}
