import { createOutboxPublisher } from '../../functions/outbox-publisher/handler';
import { LocalStreamPump } from '../../local/stream-pump';
import { systemClock } from '../../shared/app/ports';
import type { RelayServices } from '../../shared/app/services';
import type { RelayConfig } from '../../shared/config/schema';
import { createScrubber } from '../../shared/util/redact';
import { createTestTable } from './dynamo';
import { CollectingSink, patientAckBudgets, silentLogger } from './relay';

/**
 * The relay's use cases wired to a fresh table in DynamoDB Local, without HTTP: relay services,
 * plus the stream pump and outbox publisher feeding a collecting sink. `publish()` flushes the stream.
 */
export async function createIntegrationRelay(config: RelayConfig) {
  const table = await createTestTable();
  const services: RelayServices = {
    // A callback is stored however long a busy machine's DynamoDB Local takes (patientAckBudgets).
    config: { ...config, ackBudgets: patientAckBudgets(config.ackBudgets) },
    store: table.store,
    clock: systemClock,
    log: silentLogger,
    scrub: createScrubber([]),
  };
  const sink = new CollectingSink();
  const publisher = createOutboxPublisher({ sink, log: silentLogger });
  // A long interval: tests flush explicitly with publish() instead of waiting for the timer.
  const pump = new LocalStreamPump(
    table.client,
    table.endpoint,
    table.tableName,
    (e) => publisher(e, {} as never),
    silentLogger,
    60_000,
  );
  await pump.start();
  return {
    table,
    services,
    sink,
    async publish() {
      await pump.poll();
      await pump.poll();
      return sink.events;
    },
    async stop() {
      await pump.stop();
      await table.drop();
    },
  };
}
