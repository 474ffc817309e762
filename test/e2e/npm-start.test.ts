import { mkdtempSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundledScript } from '../helpers/bundled-script';
import { killChildren, runBundle } from '../helpers/child-process';

afterEach(killChildren);

/**
 * The refusals end before DynamoDB Local starts: most of their CPU would be tsx loading the relay (about
 * 3 s), so they run a bundle of the same entry point (test/helpers/bundled-script.ts). npm start as
 * package.json runs it, started and stopped, is tested where it does more: stopped by SIGTERM in
 * relay-simulator-npm-start.test.ts (with the simulator), by SIGINT twice in npm-start-stop.test.ts.
 */
const bundledStart = async (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runBundle((await bundledScript('start')).file, args, env);

describe('npm start', () => {
  it('refuses a bad config and names the key', async () => {
    const config = join(mkdtempSync(join(tmpdir(), 'relay-bad-')), 'bad.json');
    writeFileSync(
      config,
      JSON.stringify({
        management: { bearerToken: 'demo-admin-token' },
        accounts: { momo: { demo: { currency: 'EURO' } } },
      }),
    );
    const relay = await bundledStart(['--config', config]);
    expect(await relay.exited).toBe(1);
    expect(relay.output()).toContain('accounts.momo.demo.currency');
  }, 30_000);

  it('explains that Java is needed when java is not on PATH', async () => {
    const relay = await bundledStart([], { PATH: mkdtempSync(join(tmpdir(), 'no-java-')) });
    expect(await relay.exited).toBe(1);
    expect(relay.output()).toMatch(/needs Java 17/);
  }, 30_000);
});

describe('npm start, the mistakes a new user makes', () => {
  it('refuses a mistyped option with the option meant and the usage, exit code 2, no stack trace', async () => {
    // Act
    const relay = await bundledStart(['--simualtor']);
    // Assess
    expect(await relay.exited).toBe(2);
    expect(relay.output()).toContain("✖ Unknown option '--simualtor'; did you mean --simulator?");
    expect(relay.output()).toMatch(/^Usage: npm start/m);
    expect(relay.output()).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  }, 30_000);

  it('says that npm took the options given without `--` (npm start --simulator) and what to type', async () => {
    // Act: what npm passes on for `npm start --simulator`: the option in its own config, none to the relay.
    const relay = await bundledStart([], {
      npm_lifecycle_event: 'start',
      npm_config_simulator: 'true',
      PATH: mkdtempSync(join(tmpdir(), 'no-java-')),
    });
    // Assess
    expect(await relay.exited).toBe(2);
    expect(relay.output()).toContain(
      "✖ npm took --simulator for itself: the script's options go after `--`, as in npm start -- --simulator",
    );
  }, 30_000);

  it('says a second npm start is running before it starts DynamoDB Local, and how to start on another port', async () => {
    // Prepare: the port taken, and no Java on PATH, so an answer about Java means the port came second.
    const taken = createServer();
    await new Promise<void>((listening) => taken.listen(0, '127.0.0.1', listening));
    const port = (taken.address() as AddressInfo).port;
    try {
      // Act
      const relay = await bundledStart(['--port', String(port)], {
        PATH: mkdtempSync(join(tmpdir(), 'no-java-')),
      });
      // Assess
      expect(await relay.exited).toBe(1);
      expect(relay.output()).toContain(`Port ${port} is in use: is another \`npm start\` still running?`);
      expect(relay.output()).toContain(`npm start -- --port ${port + 1}`);
      expect(relay.output()).not.toMatch(/Java/);
    } finally {
      taken.close();
    }
  }, 30_000);
});
