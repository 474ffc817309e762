import { describe, expect, it } from 'vitest';
import { InvalidReferenceError, SchemaValidationError } from '../../../../shared/domain/errors';
import { airtelProvider } from '../../../../shared/providers/airtel';
import { airtelRegistration } from '../../../../shared/providers/airtel/registration';
import { callbackInput, fixture, onlyDraft, parse, settings, signCallback, verifyThenParse } from './support';

const route = airtelProvider.routes[0]!;

describe('Airtel callback route', () => {
  it('is POST /v1/airtel/{account}/callback', () => {
    expect({ name: route.name, methods: route.methods, path: route.path }).toEqual({
      name: 'callback',
      methods: ['POST'],
      path: 'callback',
    });
  });

  it('turns a signed TS callback into one SUCCEEDED report keyed by transaction.id', () => {
    // Prepare
    const callback = signCallback('stringify-without-hash', fixture('callback-ts').transaction);
    const input = callbackInput(callback.raw, callback.headers, settings());

    // Act
    const { parsed } = verifyThenParse(input);

    // Assess
    const draft = onlyDraft(parsed);
    expect(draft.key).toEqual({ provider: 'airtel', account: 'demo', reference: 'AT-ORDER-1001' });
    expect(draft.status).toBe('SUCCEEDED');
    expect(draft.kind).toBe('payment');
    expect(draft.providerTransactionId).toBe('MP210603.1234.A00001');
    expect(draft.amount).toBeUndefined();
  });

  it('turns a TF callback into a FAILED report whose reason comes from the message', () => {
    // Prepare
    const callback = signCallback('stringify-without-hash', fixture('callback-tf').transaction);

    // Act
    const { parsed } = verifyThenParse(callbackInput(callback.raw, {}, settings()));

    // Assess
    const draft = onlyDraft(parsed);
    expect(draft.status).toBe('FAILED');
    expect(draft.reason).toMatchObject({ code: 'INSUFFICIENT_FUNDS', providerCode: 'TF' });
  });

  it('acknowledges a stored callback with 200 and a small JSON body', () => {
    // Act
    const ack = airtelProvider.ack({ route: 'callback', duplicate: false, receiptId: 'rcpt-1' });

    // Assess
    expect(ack).toEqual({ statusCode: 200, body: { received: true, duplicate: false, receiptId: 'rcpt-1' } });
  });

  it('says "duplicate" in the acknowledgement of a repeated delivery', () => {
    expect(
      airtelProvider.ack({ route: 'callback', duplicate: true, receiptId: 'rcpt-1' }).body,
    ).toMatchObject({
      duplicate: true,
    });
  });

  it('rejects a body without a transaction with a schema error', () => {
    // Prepare
    const input = callbackInput(
      JSON.stringify({ hello: 'world' }),
      {},
      settings({ hashMode: 'off', callbackKey: undefined }),
    );

    // Act
    const run = () => verifyThenParse(input);

    // Assess
    expect(run).toThrow(SchemaValidationError);
  });

  it.each([
    ['no status_code', { id: 'AT-1' }],
    ['a blank status_code', { id: 'AT-1', status_code: '  ' }],
    ['no id', { status_code: 'TS' }],
    ['an object as id', { id: { value: 'AT-1' }, status_code: 'TS' }],
  ])('rejects a transaction with %s with a schema error', (_name, transaction) => {
    // Prepare
    const input = callbackInput(JSON.stringify({ transaction }), {}, settings({ hashMode: 'off' }));

    // Act
    const run = () => parse(input);

    // Assess
    expect(run).toThrow(SchemaValidationError);
  });

  it.each([
    ['contains "/"', 'order/1'],
    ['is longer than 64 characters', 'A'.repeat(65)],
    ['is "..", a path segment no URL can name', '..'],
    ['is "."', '.'],
  ])('rejects a transaction.id that %s as an invalid reference', (_name, id) => {
    // Prepare
    const transaction = { ...fixture('callback-ts').transaction, id };
    const callback = signCallback('stringify-without-hash', transaction);
    const input = callbackInput(callback.raw, {}, settings());

    // Act
    const run = () => verifyThenParse(input);

    // Assess
    expect(run).toThrow(InvalidReferenceError);
  });

  it('reads a numeric transaction.id as text', () => {
    // Prepare
    const transaction = { ...fixture('callback-ts').transaction, id: 1001 };
    const input = callbackInput(JSON.stringify({ transaction }), {}, settings({ hashMode: 'off' }));

    // Act
    const draft = onlyDraft(parse(input));

    // Assess
    expect(draft.key.reference).toBe('1001');
  });

  it('registers Airtel references verbatim and refuses those that cannot be a transaction.id', () => {
    expect(airtelRegistration.validateReference('AT-ORDER-1001')).toBeUndefined();
    expect(airtelRegistration.validateReference('a/b')).toMatch(/"\/"/);
    expect(airtelRegistration.validateReference('..')).toMatch(/"\.\."/);
    expect(airtelRegistration.validateReference('...')).toBeUndefined();
    expect(airtelRegistration.normalizeReference).toBeUndefined();
    expect(airtelRegistration.callbackUrl).toBeUndefined();
  });

  it('declares the callback key as a secret to scrub', () => {
    expect(airtelProvider.secrets!(settings())).toEqual(['test-airtel-callback-key']);
  });
});
