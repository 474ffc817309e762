/**
 * Where `npm run sim` reads the relay's events: the JSON-lines file `npm start` appends to, or (in tests)
 * anything else that yields event envelopes. Only events published after the feed was opened are read.
 */
import { open, stat } from 'node:fs/promises';
import type { EventEnvelope } from '../../shared/domain/events';

export interface FeedEvent {
  envelope: EventEnvelope;
  /** The line as it is in the events file (the EventBridge event shape). */
  line: string;
}

export interface EventFeed {
  /** Where the events come from, for people (a file path). */
  readonly label: string;
  /** Every event published since the feed was opened, oldest first. */
  read(): Promise<FeedEvent[]>;
  /** Resolves once the relay has published what it has already written (its stream is polled). */
  settle(): Promise<void>;
}

/** The line FileEventSink writes for an event, for feeds that get envelopes rather than lines. */
export function eventLine(envelope: EventEnvelope, source = 'mobile-money.relay'): string {
  return JSON.stringify({
    id: envelope.metadata.id,
    source,
    'detail-type': envelope.metadata.type,
    time: envelope.metadata.occurredAt,
    detail: envelope,
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How long `settle()` waits at most for the relay's stream to catch up before reading what is there. */
const CATCH_UP_LIMIT_MS = 30_000;
export const CATCH_UP_POLL_MS = 250;
/** A relay that does not say when its stream caught up (an older `npm start`): a fixed pause, as before. */
export const FALLBACK_SETTLE_MS = 600;

/**
 * When the relay's stream last caught up (`GET /health` → `stream.caughtUpAt`: everything written before
 * it is published), null while it has not yet, undefined when the relay does not say (or does not answer).
 */
export function relayStreamCaughtUp(relayUrl: string): () => Promise<string | null | undefined> {
  const url = `${relayUrl.replace(/\/+$/, '')}/health`;
  return async () => {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      if (!response.ok) return undefined;
      const body = (await response.json()) as { stream?: { caughtUpAt?: string | null } };
      return body.stream ? (body.stream.caughtUpAt ?? null) : undefined;
    } catch {
      return undefined;
    }
  };
}

/**
 * Waits until the relay has published everything it wrote before this call: its stream caught up after
 * now. Not a fixed pause: on a loaded machine publishing takes longer, and reading early would judge a
 * scenario by an events file the relay has not finished writing.
 */
async function awaitCatchUp(
  caughtUp: () => Promise<string | null | undefined>,
  pause: (ms: number) => Promise<void>,
): Promise<void> {
  const since = new Date().toISOString();
  const deadline = Date.now() + CATCH_UP_LIMIT_MS;
  for (;;) {
    const at = await caughtUp();
    if (at === undefined) return pause(FALLBACK_SETTLE_MS);
    if (at !== null && at > since) return;
    if (Date.now() > deadline) return;
    await pause(CATCH_UP_POLL_MS);
  }
}

/**
 * Follows the events file from its current end. A line is read once it is complete (ends with a newline);
 * a file that shrank (deleted and recreated) is read again from its start. `caughtUp` tells when the relay
 * writing it has published everything (relayStreamCaughtUp); without it, `settle()` is a fixed pause.
 * `pause` waits between looks (real time; a test passes one that only records what it was asked).
 */
export async function openEventsFile(
  path: string,
  caughtUp?: () => Promise<string | null | undefined>,
  pause: (ms: number) => Promise<void> = sleep,
): Promise<EventFeed> {
  const sizeOf = async () => (await stat(path).catch(() => undefined))?.size ?? 0;
  let offset = await sizeOf();
  let pending = '';
  const events: FeedEvent[] = [];
  return {
    label: path,
    async read() {
      const size = await sizeOf();
      if (size < offset) {
        offset = 0;
        pending = '';
      }
      if (size > offset) {
        const handle = await open(path, 'r');
        try {
          const buffer = Buffer.alloc(size - offset);
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
          offset += bytesRead;
          pending += buffer.subarray(0, bytesRead).toString('utf8');
        } finally {
          await handle.close();
        }
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          if (!line.trim()) continue;
          try {
            const parsed = JSON.parse(line) as { detail?: EventEnvelope };
            if (parsed.detail?.metadata) events.push({ envelope: parsed.detail, line });
          } catch {
            // not an event line; ignore
          }
        }
      }
      return [...events];
    },
    settle: () => (caughtUp ? awaitCatchUp(caughtUp, pause) : pause(FALLBACK_SETTLE_MS)),
  };
}
