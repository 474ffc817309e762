import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../local/dynamodb-local';
import { bundledScript } from '../helpers/bundled-script';
import { killChildren, ROOT, runBundle, runTs, waitFor } from '../helpers/child-process';

afterEach(killChildren);

// The children must not inherit a developer's simulator settings.
const CLEAN = { SIM_PORT: '', SIM_TIME_SCALE: '', SIM_APPROVAL_DELAY_MS: '' };
const run = (script: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  runTs(script, args, { ...CLEAN, ...env });

const refused = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(1000) }).then(
    () => false,
    () => true,
  );

describe('npm start -- --simulator', () => {
  it('starts the simulator wired to the demo accounts, runs a sim scenario against it, and stops everything on SIGTERM', async () => {
    // Prepare: the demo config, with its own events file and ports nobody else uses.
    const [port, simPort] = [await freePort(), await freePort()];
    const dir = mkdtempSync(join(tmpdir(), 'relay-sim-start-'));
    const eventsFile = join(dir, 'events.ndjson');
    const config = join(dir, 'relay.json');
    const demo = JSON.parse(readFileSync(join(ROOT, 'local/demo-config.json'), 'utf8'));
    writeFileSync(config, JSON.stringify({ ...demo, local: { ...demo.local, eventsFile } }));
    const relayUrl = `http://localhost:${port}`;
    const simUrl = `http://127.0.0.1:${simPort}`;

    // Act: start, then the partner decision endpoint scenario (its URL must follow the simulator's port).
    const relay = run('local/start.ts', [
      '--simulator',
      ...['--port', String(port), '--sim-port', String(simPort), '--config', config],
    ]);
    await waitFor(() => relay.output().includes('Ctrl-C to stop'), 45_000, relay.output);
    // The flags win over PORT and SIM_PORT (here naming ports nobody listens on).
    const sim = run(
      'scripts/sim.ts',
      [
        ...['daraja', 'c2b', '--account', 'demo-slow'],
        ...['--relay', relayUrl, '--sim', simUrl, '--config', config],
      ],
      { PORT: '1', SIM_PORT: '1' },
    );
    const simExit = await sim.exited;
    // Without flags, npm run sim finds the relay and the simulator where PORT and SIM_PORT put npm start.
    // A bundle of scripts/sim.ts (test/helpers/bundled-script.ts): tsx loading it costs 1.4 s more CPU, and
    // the run above goes through tsx.
    const byEnv = runBundle((await bundledScript('sim')).file, ['momo', 'pay', '--config', config], {
      ...CLEAN,
      PORT: String(port),
      SIM_PORT: String(simPort),
    });
    const byEnvExit = await byEnv.exited;

    // Assess
    const banner = relay.output();
    expect(banner).toContain('momo/demo');
    expect(banner).toContain(eventsFile);
    expect(banner).toContain(`simulator:   ${simUrl}`);
    expect(banner).toContain(`Airtel   app sim-airtel-client-id → ${relayUrl}/v1/airtel/demo/callback`);
    expect(banner).toContain(`C2B short code 600638 → daraja/demo`);
    expect(banner).toContain(`npm run sim -- --relay ${relayUrl} --sim ${simUrl} momo pay`);
    // The poller starts once the simulator listens: a new user sees no warning about a provider unreachable.
    expect(banner).not.toMatch(/fetch failed|ECONNREFUSED/);
    expect(simExit, sim.output()).toBe(0);
    expect(byEnvExit, byEnv.output()).toBe(0);
    expect(byEnv.output()).toContain(`${relayUrl}/v1/transactions`);
    expect(byEnv.output()).toContain(`${simUrl}/collection/`);
    const events = readFileSync(eventsFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const decided = events.find((e) => e['detail-type'] === 'C2BValidationDecided');
    expect(decided?.detail.data).toMatchObject({
      account: 'demo-slow',
      decision: 'accept',
      deadlineApplied: true,
    });
    expect(events.map((e) => e['detail-type'])).toContain('TransactionSucceeded');
    expect(sim.output()).toContain(`"detail-type":"C2BValidationDecided"`);
    expect(banner).toContain('⇢ event C2BValidationDecided');

    // Act: SIGTERM stops the simulator, the relay and DynamoDB Local.
    const dynamo = /DynamoDB Local (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];
    expect(dynamo).toBeDefined();
    expect((await fetch(`${relayUrl}/health`)).status).toBe(200);
    relay.child.kill('SIGTERM');
    expect(await relay.exited).toBe(0);
    expect(await refused(`${simUrl}/_sim/health`)).toBe(true);
    expect(await refused(`${relayUrl}/health`)).toBe(true);
    expect(await refused(dynamo!)).toBe(true);
  }, 150_000);
});
