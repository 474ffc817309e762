import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../shared/config/load';
import type { RelayConfig } from '../shared/config/schema';
import { ConfigError } from '../shared/domain/errors';
import { ConsoleLogger } from './console-logger';
import { JavaMissingError, startDynamoDbLocal } from './dynamodb-local';
import { startLocalRelay } from './relay';

const DEMO_CONFIG = resolve(import.meta.dirname, 'demo-config.json');

// The SDK warns that its 2027 releases need Node 22; Lambda already runs 22, and locally the multi-line
// warning would bury the startup banner. The README states the Node requirements.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

function fail(message: string): never {
  process.stderr.write(`\n✖ ${message}\n\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(
      [
        'npm start [-- options]',
        '  --config <file>    relay config JSON (default: RELAY_CONFIG or local/demo-config.json)',
        '  --port <n>         HTTP port (default: PORT or 3000)',
        '  --data-dir <dir>   keep DynamoDB Local data in <dir> (default: in memory; env RELAY_DATA_DIR)',
        '',
      ].join('\n'),
    );
    return;
  }
  const port = Number(values.port ?? process.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail(`--port / PORT must be a port number, got "${values.port ?? process.env.PORT}"`);

  let config: RelayConfig;
  try {
    config = loadConfig(
      values.config ? { ...process.env, RELAY_CONFIG: values.config } : process.env,
      DEMO_CONFIG,
    );
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  // Locally the relay is reachable where it listens; keep generated callback URLs pointing there.
  const base = new URL(config.publicBaseUrl);
  if ((base.hostname === 'localhost' || base.hostname === '127.0.0.1') && base.port !== String(port)) {
    base.port = String(port);
    config = { ...config, publicBaseUrl: base.toString().replace(/\/$/, '') };
  }

  const log = new ConsoleLogger();
  const dataDir = values['data-dir'] ?? process.env.RELAY_DATA_DIR;
  let dynamo: Awaited<ReturnType<typeof startDynamoDbLocal>>;
  try {
    dynamo = await startDynamoDbLocal({ dataDir });
  } catch (error) {
    if (error instanceof JavaMissingError) fail(error.message);
    fail(`Could not start DynamoDB Local: ${(error as Error).message}`);
  }

  const relay = await startLocalRelay({
    config,
    dynamoEndpoint: dynamo.endpoint,
    tableName: 'relay-local',
    port,
    host: process.env.HOST ?? '127.0.0.1',
    log,
    printEvent: (line) => process.stdout.write(`  ⇢ event ${line}\n`),
  }).catch(async (error) => {
    await dynamo.stop();
    const code = (error as NodeJS.ErrnoException).code;
    fail(
      code === 'EADDRINUSE'
        ? `Port ${port} is in use; set PORT or --port`
        : `Relay failed to start: ${(error as Error).stack}`,
    );
  });

  const accounts = [...config.accounts.values()].map(
    (a) => `${a.provider}/${a.id}${a.pathSecret ? ' (path secret)' : ''}`,
  );
  process.stdout.write(
    [
      '',
      `Mobile-money callback relay listening on ${relay.url}`,
      `  health:      GET ${relay.url}/health`,
      `  management:  POST ${relay.url}/v1/transactions   (Authorization: Bearer ${config.management.bearerToken === 'demo-admin-token' ? 'demo-admin-token' : '<your token>'})`,
      `  callbacks:   ${relay.url}/v1/{provider}/{account}/...   public base URL ${config.publicBaseUrl}`,
      `  accounts:    ${accounts.join(', ') || '(none configured)'}`,
      `  events:      ${resolve(config.local.eventsFile)} (one JSON line per event; also printed below)`,
      `  storage:     DynamoDB Local ${dynamo.endpoint}, ${dataDir ? `data in ${resolve(dataDir)}` : 'in memory (use --data-dir to keep data)'}`,
      '  Ctrl-C to stop.',
      '',
    ].join('\n'),
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping relay and DynamoDB Local…\n`);
    await relay.stop().catch(() => undefined);
    await dynamo.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error) => fail((error as Error).stack ?? String(error)));
