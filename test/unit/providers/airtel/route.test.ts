import { describe, expect, it } from 'vitest';
import { InvalidReferenceError, SchemaValidationError } from '../../../../shared/domain/errors';
import { airtelProvider } from '../../../../shared/providers/airtel';
import { fixture, routeContext, settings, signCallback } from './support';

const route = airtelProvider.routes[0]!;

describe('Airtel callback route', () => {
  it('is POST /v1/airtel/{account}/callback', () => {
    expect({ name: route.name, methods: route.methods, path: route.path }).toEqual({
      name: 'callback',
      methods: ['POST'],
      path: 'callback',
    });
  });

  it('acknowledges a stored callback with 200 and a small JSON body', async () => {
    const callback = signCallback('stringify-without-hash', fixture('callback-ts').transaction);
    const { ctx, ingested } = routeContext(callback.raw, callback.headers, settings());

    const response = await route.handle(ctx);

    expect(response).toEqual({
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: { received: true, duplicate: false, receiptId: 'rcpt-1' },
    });
    expect(ingested[0]!.draft.key.reference).toBe('AT-ORDER-1001');
  });

  it('rejects a correctly signed body without a transaction with a schema error', async () => {
    const { ctx } = routeContext(
      JSON.stringify({ hello: 'world' }),
      {},
      settings({ hashMode: 'off', callbackKey: undefined }),
    );

    await expect(route.handle(ctx)).rejects.toBeInstanceOf(SchemaValidationError);
  });

  it('rejects a transaction.id that cannot be a reference', async () => {
    const transaction = { ...fixture('callback-ts').transaction, id: 'order/1' };
    const callback = signCallback('stringify-without-hash', transaction);
    const { ctx, ingested } = routeContext(callback.raw, {}, settings());

    await expect(route.handle(ctx)).rejects.toBeInstanceOf(InvalidReferenceError);
    expect(ingested).toHaveLength(0);
  });
});
