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
  /** Gives the relay time to publish what it has already written (its stream is polled). */
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

/**
 * Follows the events file from its current end. A line is read once it is complete (ends with a newline);
 * a file that shrank (deleted and recreated) is read again from its start.
 */
export async function openEventsFile(path: string, settleMs = 600): Promise<EventFeed> {
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
    settle: () => sleep(settleMs),
  };
}
