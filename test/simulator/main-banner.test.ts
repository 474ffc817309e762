/**
 * `npm run simulator` (simulator/main.ts): the banner lists every MoMo product's subscription keys. Run as
 * its own process on a free port (SIM_PORT=0), stopped with SIGTERM once the banner is out.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../simulator/options';

let child: ChildProcess | undefined;

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  child = undefined;
});

/** Starts main.ts and resolves with its stdout once the banner's last section has been printed. */
function banner(): Promise<string> {
  return new Promise((resolve, reject) => {
    child = spawn(process.execPath, ['--import', 'tsx', 'simulator/main.ts'], {
      env: { ...process.env, SIM_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (out.includes('Admin and faults')) resolve(out);
    });
    child.stderr?.on('data', (c: Buffer) => (err += c.toString('utf8')));
    child.once('exit', (code) => reject(new Error(`simulator exited (${code}) before its banner: ${err}`)));
  });
}

describe('npm run simulator banner', () => {
  it('prints the remittance subscription keys next to collection and disbursement', async () => {
    // Act
    const out = await banner();

    // Assess
    const keys = DEFAULTS.momo;
    expect(out).toContain(
      `remittance subscription key   ${keys.remittanceSubscriptionKeys.primary} (secondary ${keys.remittanceSubscriptionKeys.secondary})`,
    );
    expect(out).toContain(`collection subscription key   ${keys.collectionSubscriptionKeys.primary}`);
    expect(out).toContain(`disbursement subscription key ${keys.disbursementSubscriptionKeys.primary}`);
  });
});
