import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callbackConfigShape } from '../../../shared/config/callback-config';
import { parseConfig } from '../../../shared/config/load';
import { parseCallbackConfig } from '../../../shared/config/loader';
import { ConfigError } from '../../../shared/domain/errors';

/*
 * The callback function and the buffer consumer parse only the config sections the callback path reads
 * (shared/config/callback-config.ts), so their bundles leave out the other sections' schemas. What they
 * read must be what the whole config's parse gives; a malformed section they read still fails with its key.
 */

const example = JSON.parse(readFileSync(join(__dirname, '../../../infra/example-config.json'), 'utf8'));

function errorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('the callback path config', () => {
  it('holds what the whole config parse gives for the sections it reads, the defaults included', () => {
    // Arrange
    const input = { ...example, ackBudgets: { momo: { storeMs: 1000, ackMs: 2000 } } };
    // Act
    const whole = parseConfig(input, { secretsUnresolved: true });
    const callback = parseCallbackConfig(input, { secretsUnresolved: true });
    // Assess
    const sections = Object.keys(callbackConfigShape) as (keyof typeof callbackConfigShape)[];
    expect(Object.keys(callback).sort()).toEqual([...sections].sort());
    for (const section of sections) expect(callback[section]).toEqual(whole[section]);
    expect(callback.accounts.size).toBeGreaterThan(0);
  });

  it('names the bad key of a malformed section it reads, as the whole config parse does', () => {
    // Arrange
    const input = { ...example, limits: { maxBodyBytes: 'big' }, edge: { mode: 'cloudfront' } };
    // Act
    const message = errorOf(() => parseCallbackConfig(input, { secretsUnresolved: true }));
    // Assess
    expect(message).toMatch(/^Invalid relay config:/);
    expect(message).toContain('limits.maxBodyBytes');
    expect(message).toContain('edge.originVerifySecrets');
  });

  it("names the bad key inside an account, with its provider's settings schema", () => {
    // Arrange
    const input = { accounts: { momo: { demo: { pathSecret: 'short', currency: 'EURO' } } } };
    // Act
    const message = errorOf(() => parseCallbackConfig(input));
    // Assess
    expect(message).toContain('accounts.momo.demo.pathSecret: path secrets must be at least 16 characters');
    expect(message).toContain('accounts.momo.demo.currency');
  });

  it('leaves the sections it does not read to cdk synth, which validated them', () => {
    // Arrange: a destination of an unknown type, which the whole config refuses.
    const input = { ...example, destinations: { partner: { type: 'carrier-pigeon' } } };
    // Act
    const callback = parseCallbackConfig(input, { secretsUnresolved: true });
    // Assess
    expect(errorOf(() => parseConfig(input, { secretsUnresolved: true }))).toContain(
      'destinations.partner.type',
    );
    expect(callback).not.toHaveProperty('destinations');
  });
});
