import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { WebhookRequest } from '../../../shared/app/delivery/ports';
import type { EventEnvelope } from '../../../shared/domain/event-envelope';
import { DrivenTime } from '../../../test/helpers/driven-time';
import {
  MissingWebhookHeaderError,
  verify,
  WebhookPayloadError,
  WebhookSecretError,
  WebhookSignatureError,
  WebhookTimestampError,
  WebhookVerificationError,
} from '../src/index.js';
import { newSecret, succeeded } from './fixtures';
import { relayEngine } from './relay-engine';

const SENT_AT = new Date('2026-11-21T15:53:30.000Z');
const at = (date: Date) => () => date;

/** What the specification's reference library (npm `standardwebhooks`) sends for a body. */
function referenceSigned(secret: string, id: string, body: string, sentAt = SENT_AT) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, sentAt, body),
  };
}

/** The request the relay's delivery engine (the one `npm start` runs) sends for an event. */
async function relaySigned(
  secrets: string[],
  event: EventEnvelope,
  sentAt = SENT_AT,
): Promise<WebhookRequest> {
  const time = new DrivenTime(sentAt.getTime());
  const sent: WebhookRequest[] = [];
  const { engine } = relayEngine(
    { url: 'http://localhost:4000/webhooks', signingSecrets: secrets },
    {
      sender: {
        send: async (request) => (sent.push(request), { kind: 'answered', status: 204, excerpt: '' }),
      },
      clock: time,
      scheduler: time,
    },
  );
  await engine.submit(event);
  await engine.settled();
  return sent[0]!;
}

describe('verify() and the reference library', () => {
  it('accepts what the reference library signs, and returns the parsed event', () => {
    // Prepare
    const secret = newSecret();
    const body = JSON.stringify(succeeded);
    const headers = referenceSigned(secret, succeeded.metadata.id, body);

    // Act
    const event = verify(headers, body, secret, { now: at(SENT_AT) });

    // Assess
    expect(event).toEqual(succeeded);
  });

  it('accepts any body, id and secret the reference library signs, within the tolerance (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 24, maxLength: 64 }),
        fc.string({ minLength: 1, maxLength: 64 }).filter((id) => !/[\s,]/.test(id)),
        fc.json(),
        fc.integer({ min: -300, max: 300 }),
        (key, id, body, skew) => {
          const secret = `whsec_${Buffer.from(key).toString('base64')}`;
          const headers = referenceSigned(secret, id, body);
          const now = new Date(SENT_AT.getTime() + skew * 1000);
          expect(verify(headers, body, secret, { now: at(now) })).toEqual(JSON.parse(body));
        },
      ),
    );
  });

  it('refuses a body changed in any one byte after the reference library signed it (property)', () => {
    const secret = newSecret();
    const body = JSON.stringify(succeeded);
    const headers = referenceSigned(secret, succeeded.metadata.id, body);
    fc.assert(
      fc.property(fc.nat(body.length - 1), fc.integer({ min: 1, max: 255 }), (index, flip) => {
        const bytes = Buffer.from(body);
        bytes[index] = bytes[index]! ^ flip;
        expect(() => verify(headers, bytes, secret, { now: at(SENT_AT) })).toThrow(WebhookSignatureError);
      }),
    );
  });
});

describe("verify() and the relay's delivery engine", () => {
  it('accepts the delivery the engine signs, and the reference library agrees', async () => {
    // Prepare
    const secret = newSecret();
    // The reference library reads the system clock: the delivery is signed now.
    const now = new Date();
    const request = await relaySigned([secret], succeeded as unknown as EventEnvelope, now);

    // Act
    const event = verify(request.headers, request.body, secret, { now: at(now) });

    // Assess
    expect(event).toEqual(succeeded);
    expect(request.headers['webhook-id']).toBe(succeeded.metadata.id);
    expect(new Webhook(secret).verify(request.body, request.headers)).toEqual(event);
  });

  it('accepts a delivery during a rotation with either secret, and with both', async () => {
    // Prepare
    const [current, previous] = [newSecret(), newSecret()];
    const request = await relaySigned([current, previous], succeeded as unknown as EventEnvelope);

    // Act
    const verified = [[current], [previous], [newSecret(), previous]].map((secrets) =>
      verify(request.headers, request.body, secrets, { now: at(SENT_AT) }),
    );

    // Assess
    expect(request.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verified).toEqual([succeeded, succeeded, succeeded]);
  });

  it('refuses a tampered body, a wrong secret, an old or future timestamp and a missing header, each by name', async () => {
    // Prepare
    const secret = newSecret();
    const { headers, body } = await relaySigned([secret], succeeded as unknown as EventEnvelope);
    const sixMinutes = 6 * 60 * 1000;
    const { ['webhook-signature']: _dropped, ...unsigned } = headers;

    // Act
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const tampered = refusal(() =>
      verify(headers, body.replace('"100"', '"1000"'), secret, { now: at(SENT_AT) }),
    );
    const wrongSecret = refusal(() => verify(headers, body, newSecret(), { now: at(SENT_AT) }));
    const old = refusal(() =>
      verify(headers, body, secret, { now: at(new Date(SENT_AT.getTime() + sixMinutes)) }),
    );
    const future = refusal(() =>
      verify(headers, body, secret, { now: at(new Date(SENT_AT.getTime() - sixMinutes)) }),
    );
    const missing = refusal(() => verify(unsigned, body, secret, { now: at(SENT_AT) }));

    // Assess
    expect(tampered).toBeInstanceOf(WebhookSignatureError);
    expect(wrongSecret).toBeInstanceOf(WebhookSignatureError);
    expect(old).toBeInstanceOf(WebhookTimestampError);
    expect((old as Error).message).toBe('webhook-timestamp is 360 s old (tolerance 300 s)');
    expect(future).toBeInstanceOf(WebhookTimestampError);
    expect(missing).toBeInstanceOf(MissingWebhookHeaderError);
    expect((missing as Error).message).toBe('missing webhook-signature header');
    for (const error of [tampered, wrongSecret, old, future, missing])
      expect(error).toBeInstanceOf(WebhookVerificationError);
    // The reference library refuses the same four.
    const reference = new Webhook(secret);
    expect(() => reference.verify(body.replace('"100"', '"1000"'), headers)).toThrow();
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
  });

  it('reads the headers of a fetch Request and of node (any case, repeated values joined)', async () => {
    // Prepare
    const secret = newSecret();
    const { headers, body } = await relaySigned([secret], succeeded as unknown as EventEnvelope);
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    const [signature] = headers['webhook-signature']!.split(' ');
    const repeated = { ...headers, 'webhook-signature': ['v1,bm90IGl0', signature!] };

    // Act
    const results = [new Headers(headers), upper, repeated].map((h) =>
      verify(h, body, secret, { now: at(SENT_AT) }),
    );

    // Assess
    expect(results).toEqual([succeeded, succeeded, succeeded]);
  });

  it('refuses a signature of another version, a body that is not JSON, and says a malformed secret is a configuration error', () => {
    // Prepare
    const secret = newSecret();
    const headers = referenceSigned(secret, 'msg_1', 'not json');
    const otherVersion = {
      ...headers,
      'webhook-signature': headers['webhook-signature'].replace(/^v1,/, 'v1a,'),
    };

    // Act
    const notJson = () => verify(headers, 'not json', secret, { now: at(SENT_AT) });
    const v1a = () => verify(otherVersion, 'not json', secret, { now: at(SENT_AT) });

    // Assess
    expect(notJson).toThrow(WebhookPayloadError);
    expect(v1a).toThrow(WebhookSignatureError);
    expect(() => verify(headers, 'x', 'whsec_not base64!', { now: at(SENT_AT) })).toThrow(WebhookSecretError);
    expect(() => verify(headers, 'x', [], { now: at(SENT_AT) })).toThrow(WebhookSecretError);
  });
});
