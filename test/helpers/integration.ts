import { createOutboxPublisher } from '../../functions/outbox-publisher/handler';
import { LocalStreamPump } from '../../local/stream-pump';
import { CallbackServices } from '../../shared/domain/callback-services';
import { systemClock } from '../../shared/domain/ports';
import { createTestTable } from './dynamo';
import { CollectingSink, silentLogger } from './relay';

/**
 * The relay's domain wired to a fresh table in DynamoDB Local, without HTTP: callback services,
 * plus the stream pump and outbox publisher feeding a collecting sink. `publish()` flushes the stream.
 */
export async function createIntegrationRelay() {
  const table = await createTestTable();
  const services = new CallbackServices(table.store, systemClock, silentLogger, {
    reconcileWindowSeconds: 3600,
  });
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
