import { createHmac } from 'node:crypto';

/** The Standard Webhooks 1.0 headers (https://www.standardwebhooks.com/, "Webhook headers"). */
const WEBHOOK_ID_HEADER = 'webhook-id';
const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

const SECRET_PREFIX = 'whsec_';

/**
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` for each secret, space-separated: during a rotation
 * the receiver holds either secret, and any one valid signature is enough (the specification's rule).
 * The key is the base64-decoded part after `whsec_`, as the specification's libraries decode it.
 */
function webhookSignature(
  id: string,
  timestampSeconds: number,
  body: string,
  secrets: readonly string[],
): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(
        secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
        'base64',
      );
      const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
      return `v1,${mac}`;
    })
    .join(' ');
}

/** The three headers of one attempt; `id` is the event id, the same on every retry and replay. */
export function webhookHeaders(
  id: string,
  timestampSeconds: number,
  body: string,
  secrets: readonly string[],
): Record<string, string> {
  return {
    [WEBHOOK_ID_HEADER]: id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestampSeconds),
    [WEBHOOK_SIGNATURE_HEADER]: webhookSignature(id, timestampSeconds, body, secrets),
  };
}
