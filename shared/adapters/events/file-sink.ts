import { appendFile, chmod, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { EventEnvelope } from '../../domain/events';
import { summarizeEvent } from '../../domain/outbox';
import type { EventSink } from '../../app/ports';

/**
 * Local stand-in for the EventBridge bus: each event is one JSON line shaped like the EventBridge
 * event a rule would receive (source, detail-type, time, detail).
 */
export class FileEventSink implements EventSink {
  private directoryReady: Promise<unknown> | undefined;

  constructor(
    private readonly path: string,
    private readonly source: string,
    private readonly print: (line: string) => void = () => {},
  ) {}

  async publish(events: readonly EventEnvelope[]): Promise<void> {
    if (events.length === 0) return;
    // A file from before (mode 644) is narrowed too, once.
    this.directoryReady ??= mkdir(dirname(this.path), { recursive: true }).then(() =>
      chmod(this.path, 0o600).catch(() => undefined),
    );
    await this.directoryReady;
    const lines = events.map((event) =>
      JSON.stringify({
        id: event.metadata.id,
        source: this.source,
        'detail-type': event.metadata.type,
        time: event.metadata.occurredAt,
        detail: event,
      }),
    );
    // Readable by its owner only: an event carries the party's whole number (docs/events.md).
    await appendFile(this.path, `${lines.join('\n')}\n`, { encoding: 'utf8', mode: 0o600 });
    for (const event of events) this.print(summarizeEvent(event));
  }
}
