import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryDeliveryLog } from '../../../shared/adapters/memory/delivery-log';
import { MemoryDestinationStates } from '../../../shared/adapters/memory/destination-states';
import { DeliveryEngine } from '../../../shared/app/delivery/engine';
import { parseConfig } from '../../../shared/config/load';
import { buildEvent } from '../../../shared/domain/events';
import type { DeliveryRequest, DestinationTypeModule } from '../../../shared/destinations/types';
import { assumedRoles, registerDestinationType, shownTarget } from '../../../shared/destinations/registry';
import * as z from '../../../shared/util/zod';
import { createScrubber } from '../../../shared/util/redact';
import { DrivenTime } from '../../helpers/driven-time';

const secret = `whsec_${randomBytes(32).toString('base64')}`;

/** A type the relay does not ship: a partner's ledger, reached through no port, keeping what it was given. */
function ledgerType(answer: 'accepted' | 'rejected') {
  const received: DeliveryRequest<{ book: string }>[] = [];
  const type: DestinationTypeModule<{ book: string }> = {
    id: 'ledger',
    settingsSchema: z.strictObject({ book: z.string().check(z.regex(/^[a-z]+$/, 'lower-case letters')) }),
    problems: (name, settings, { runtime }) =>
      runtime === 'aws' && settings.book === 'local' ? [`destinations.${name}.book: local only`] : [],
    shown: (settings) => `ledger:${settings.book}`,
    assumedRoles: () => ['arn:aws:iam::210987654321:role/ledger'],
    createDeliverer: () => ({
      async deliver(request) {
        received.push(request);
        return answer === 'accepted'
          ? { kind: 'accepted', excerpt: `booked in ${request.settings.book}` }
          : { kind: 'rejected', error: 'book closed for good', detail: 'ledger book closed' };
      },
    }),
  };
  return { type, received };
}

function parse(destinations: Record<string, unknown>) {
  return parseConfig({ management: { bearerToken: 'registry-test-token' }, destinations });
}

function engineFor(destinations: ReturnType<typeof parse>['destinations'], runtime: 'aws' | 'local' = 'aws') {
  const time = new DrivenTime();
  const disabled: string[] = [];
  const log = new MemoryDeliveryLog();
  const engine = new DeliveryEngine({
    destinations,
    secretsOf: () => [secret],
    sender: { send: () => Promise.reject(new Error('no HTTP for a ledger')) },
    log,
    states: new MemoryDestinationStates(),
    clock: time,
    scheduler: time,
    scrub: createScrubber([secret]),
    runtime,
    onDisabled: (_d, reason) => disabled.push(reason),
  });
  return { engine, log, disabled };
}

const event = buildEvent(
  'TransactionSucceeded',
  'momo:acct:ref-1',
  'SUCCEEDED',
  'callback',
  new Date().toISOString(),
  {
    provider: 'momo',
    account: 'acct',
    reference: 'ref-1',
  },
);

describe('destination type registry', () => {
  let undo: (() => void) | undefined;
  afterEach(() => {
    undo?.();
    undo = undefined;
  });

  it('refuses a type nobody registered, naming the destination and the known types', () => {
    expect(() => parse({ books: { type: 'ledger', book: 'main', signingSecrets: [secret] } })).toThrow(
      /destinations\.books\.type: unknown destination type "ledger" \(known: https, sqs\)/,
    );
  });

  it('takes a registered type: its own fields validated beside the common ones, named in errors', () => {
    // Prepare
    const { type } = ledgerType('accepted');
    undo = registerDestinationType(type);

    // Act
    const config = parse({
      books: { type: 'ledger', book: 'main', signingSecrets: [secret], concurrency: 2 },
    });

    // Assess
    expect(config.destinations.books).toMatchObject({
      type: 'ledger',
      settings: { book: 'main' },
      concurrency: 2,
    });
    expect(shownTarget(config.destinations.books!)).toBe('ledger:main');
    expect(assumedRoles(config.destinations)).toEqual(['arn:aws:iam::210987654321:role/ledger']);
    expect(() => parse({ books: { type: 'ledger', book: 'Main', signingSecrets: [secret] } })).toThrow(
      /destinations\.books\.book: lower-case letters/,
    );
    expect(() =>
      parse({ books: { type: 'ledger', book: 'main', url: 'https://x.example', signingSecrets: [secret] } }),
    ).toThrow(/destinations\.books: Unrecognized key: "url"/);
  });

  it('delivers through the registered type with the Standard Webhooks signature, and a permanent refusal disables', async () => {
    // Prepare
    const accepting = ledgerType('accepted');
    undo = registerDestinationType(accepting.type);
    const config = parse({ books: { type: 'ledger', book: 'main', signingSecrets: [secret] } });
    const { engine, log } = engineFor(config.destinations);

    // Act
    await engine.submit(event);
    await engine.settled();

    // Assess
    const [request] = accepting.received;
    expect(request).toMatchObject({
      destination: 'books',
      settings: { book: 'main' },
      eventId: event.metadata.id,
    });
    expect(new Webhook(secret).verify(request!.body, request!.signature)).toEqual(event);
    const [attempt] = await log.attempts({ correlationId: event.metadata.correlationId });
    expect(attempt).toMatchObject({ outcome: 'delivered', status: null, excerpt: 'booked in main' });

    undo();
    const refusing = ledgerType('rejected');
    undo = registerDestinationType(refusing.type);
    const second = engineFor(config.destinations);
    await second.engine.submit(event);
    await second.engine.settled();
    expect(second.disabled).toEqual(['ledger book closed']);
  });

  it("refuses at start what the type refuses where it runs, naming the destination's field", () => {
    // Prepare
    const { type } = ledgerType('accepted');
    undo = registerDestinationType(type);
    const config = parse({ books: { type: 'ledger', book: 'local', signingSecrets: [secret] } });

    // Act / Assess
    expect(() => engineFor(config.destinations, 'aws')).toThrow(/destinations\.books\.book: local only/);
    expect(() => engineFor(config.destinations, 'local')).not.toThrow();
  });

  it('keeps an https destination as it was: url and the local flag as its settings, the URL shown without its query', () => {
    const config = parse({
      shop: { url: 'https://user:pw@shop.example.com/hooks?token=abc', signingSecrets: [secret] },
    });
    expect(config.destinations.shop).toMatchObject({
      type: 'https',
      settings: { url: 'https://user:pw@shop.example.com/hooks?token=abc', allowPrivateAddresses: false },
    });
    expect(shownTarget(config.destinations.shop!)).toBe('https://shop.example.com/hooks?…');
  });
});
