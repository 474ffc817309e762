/**
 * `npm run reschedule -- --table <name> [--endpoint URL] [--config file] [--dry-run]`: the one-time step
 * after upgrading a relay whose table holds transactions stored before reconciliation existed. Each such
 * non-final transaction gets its schedule, so the poller checks it (docs/reconciliation.md#callback-health).
 * AWS: the credentials and region of the environment (AWS_REGION), the table's name from the stack's
 * outputs. Locally: `--endpoint` of DynamoDB Local (`npm start -- --data-dir` keeps it), table `relay-local`.
 */
import { resolve } from 'node:path';
import { createDynamoClients } from '../shared/adapters/dynamodb/client';
import { DynamoRelayStore } from '../shared/adapters/dynamodb/relay-store';
import { DynamoUnscheduledScan } from '../shared/adapters/dynamodb-admin/unscheduled-scan';
import { systemClock } from '../shared/app/ports';
import { rescheduleUnscheduled } from '../shared/app/reconciliation/reschedule';
import { loadConfig } from '../shared/config/load';
import { parseCli } from './cli';

// The SDK warns that its 2027 releases need Node 22 (Lambda runs 22); the README states the Node
// requirements, and the multi-line warning would bury the one line this prints.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const USAGE =
  'Usage: npm run reschedule -- --table <name> [--endpoint http://127.0.0.1:8000] [--config relay.json] [--dry-run]\n' +
  'Gives every non-final transaction stored before reconciliation existed its status-check schedule (one scan of the table).\n';

const { values } = parseCli(USAGE, {
  options: {
    table: { type: 'string', default: process.env.TABLE_NAME },
    endpoint: { type: 'string' },
    config: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});

if (!values.table) {
  process.stderr.write(`✖ Name the table: --table <name> (relay-local under npm start)\n\n${USAGE}`);
  process.exit(2);
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
