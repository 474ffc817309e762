import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { webhookHeaders } from '../../../../shared/app/delivery/signing';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

describe('Standard Webhooks signing, verified by the specification reference library', () => {
  it('produces headers the reference library verifies, returning the body', () => {
    // Prepare
    const secret = newSecret();
    const body = JSON.stringify({ metadata: { id: 'evt-1' }, data: { amount: { value: '100' } } });
    const timestamp = Math.floor(Date.now() / 1000);

    // Act
    const headers = webhookHeaders('evt-1', timestamp, body, [secret]);

    // Assess
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(headers['webhook-id']).toBe('evt-1');
    expect(headers['webhook-timestamp']).toBe(String(timestamp));
  });

  it('sends both signatures during a rotation, each secret verifying on its own', () => {
    // Prepare
    const current = newSecret();
    const previous = newSecret();
    const body = '{"metadata":{"id":"evt-2"}}';
    const timestamp = Math.floor(Date.now() / 1000);

    // Act
    const headers = webhookHeaders('evt-2', timestamp, body, [current, previous]);

    // Assess
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => new Webhook(current).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
  });

  it('is refused by the reference library when the body changed after signing', () => {
    // Prepare
    const secret = newSecret();
    const headers = webhookHeaders('evt-3', Math.floor(Date.now() / 1000), '{"a":1}', [secret]);

    // Act
    const verify = () => new Webhook(secret).verify('{"a":2}', headers);

    // Assess
    expect(verify).toThrow();
  });
});
