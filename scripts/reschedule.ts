/**
 * `npm run reschedule -- --table <name> [--endpoint URL] [--config file] [--dry-run]`: the one-time step
 * after upgrading a relay whose table holds transactions stored before reconciliation existed. Each such
 * non-final transaction gets its schedule, so the poller checks it (docs/reconciliation.md#callback-health).
 * AWS: the credentials and region of the environment (AWS_REGION), the table's name from the stack's
 * outputs. Locally: `--endpoint` of DynamoDB Local (`npm start -- --data-dir` keeps it), table `relay-local`.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createDynamoClients } from '../shared/adapters/dynamodb/client';
import { DynamoRelayStore } from '../shared/adapters/dynamodb/relay-store';
import { DynamoUnscheduledScan } from '../shared/adapters/dynamodb-admin/unscheduled-scan';
import { systemClock } from '../shared/app/ports';
import { rescheduleUnscheduled } from '../shared/app/reconciliation/reschedule';
import { loadConfig } from '../shared/config/load';

const { values } = parseArgs({
  options: {
    table: { type: 'string', default: process.env.TABLE_NAME },
    endpoint: { type: 'string' },
    config: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help || !values.table) {
  process.stdout.write(
    'Usage: npm run reschedule -- --table <name> [--endpoint http://127.0.0.1:8000] [--config relay.json] [--dry-run]\n' +
      'Gives every non-final transaction stored before reconciliation existed its status-check schedule (one scan of the table).\n',
  );
  process.exit(values.help ? 0 : 2);
}

const config = await loadConfig(
  values.config ? { ...process.env, RELAY_CONFIG: values.config } : process.env,
  resolve(import.meta.dirname, '../local/demo-config.json'),
);
const { client, doc } = createDynamoClients({ endpoint: values.endpoint });
const store = new DynamoRelayStore(doc, {
  tableName: values.table,
  retention: config.retention,
  shards: config.reconciliation.shards,
});
try {
  const result = await rescheduleUnscheduled(
    { config, store, scan: new DynamoUnscheduledScan(doc, values.table), clock: systemClock },
    { dryRun: values['dry-run'] },
  );
  process.stdout.write(
    values['dry-run']
      ? `${result.found} transactions without a schedule (dry run: nothing written)\n`
      : `${result.found} transactions without a schedule: ${result.scheduled} scheduled, ${result.skipped} changed meanwhile (left alone)\n`,
  );
} finally {
  client.destroy();
}
