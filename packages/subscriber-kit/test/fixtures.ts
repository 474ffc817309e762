import { randomBytes } from 'node:crypto';
import type { TransactionSucceeded } from '../src/index.js';

/** A new `whsec_` secret, as docs/webhooks.md tells an operator to make one. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * A TransactionSucceeded as the relay publishes it (docs/events.md#envelope). Typed with the generated
 * types, and parsed by the relay's own schema in types.test.ts: both sides agree on a real event.
 */
export const succeeded: TransactionSucceeded = {
  metadata: {
    id: 'b3d994f9-5110-57c3-b5b6-f940e5f2d400',
    version: '1',
    type: 'TransactionSucceeded',
    occurredAt: '2026-11-21T15:53:25.756Z',
    correlationId: 'momo:demo:6f1c2a9e-3c1d-4f57-9a0e-2b8f0c1d7e55',
    origin: 'poll',
  },
  data: {
    provider: 'momo',
    account: 'demo',
    kind: 'requesttopay',
    reference: '6f1c2a9e-3c1d-4f57-9a0e-2b8f0c1d7e55',
    providerTransactionId: '363440463',
    externalId: 'order-8841',
    status: 'SUCCEEDED',
    reason: null,
    amount: { value: '100', currency: 'EUR' },
    party: { idType: 'MSISDN', id: '467****3459' },
    receivedAt: '2026-11-21T15:53:25.756Z',
    evidence: [
      {
        source: 'status-api',
        claim: 'SUCCEEDED',
        authenticated: true,
        authentication: ['status-api'],
        conclusive: true,
        at: '2026-11-21T15:53:25.756Z',
        providerCode: null,
        description: null,
        amount: { value: '100', currency: 'EUR' },
        receiptId: null,
      },
    ],
  },
};
