import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Verification of Standard Webhooks 1.0 requests (https://www.standardwebhooks.com/): the relay signs
 * `<webhook-id>.<webhook-timestamp>.<body>` with HMAC-SHA256, keyed with the base64-decoded part of a
 * `whsec_` secret, and sends `v1,<base64 signature>` (two, space-separated, while a secret is rotated).
 * node:crypto only: the package has no runtime dependency.
 */

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

/** The specification's tolerance: a timestamp further than this from now, either way, is refused. */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Why a webhook was refused. Every refusal is one of the subclasses; none carries the secret. */
export class WebhookVerificationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WebhookVerificationError';
  }
}

/** A Standard Webhooks header is absent or empty. */
export class MissingWebhookHeaderError extends WebhookVerificationError {
  constructor(readonly header: string) {
    super(`missing ${header} header`);
    this.name = 'MissingWebhookHeaderError';
  }
}

/** `webhook-timestamp` is not a number of seconds, or is further than the tolerance from now. */
export class WebhookTimestampError extends WebhookVerificationError {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookTimestampError';
  }
}

/** No `v1` signature in `webhook-signature` matches the body with any of the secrets. */
export class WebhookSignatureError extends WebhookVerificationError {
  constructor(message = 'no matching v1 signature') {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

/** The body verified but is not JSON (the relay always sends a JSON event). */
export class WebhookPayloadError extends WebhookVerificationError {
  constructor(cause: unknown) {
    super('the signed body is not JSON', { cause });
    this.name = 'WebhookPayloadError';
  }
}

/** A configuration mistake on the receiver's side: no secret, or one that is not `whsec_` + base64. */
export class WebhookSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSecretError';
  }
}

/** Node's `req.headers`, a plain object in any case, or a fetch `Headers`. */
export type WebhookHeaders =
  { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyOptions {
  /** Seconds a timestamp may be away from now (default 300, the specification's). */
  toleranceSeconds?: number;
  /** Now, for tests and replays of recorded requests (default: the system clock). */
  now?: () => Date;
}

function header(headers: WebhookHeaders, name: string): string {
  let value: string | readonly string[] | null | undefined;
  if (typeof (headers as { get?: unknown }).get === 'function')
    value = (headers as { get(name: string): string | null }).get(name);
  else
    for (const [key, candidate] of Object.entries(headers))
      if (key.toLowerCase() === name) value = candidate as string | readonly string[] | undefined;
  const text = Array.isArray(value) ? value.join(' ') : (value as string | null | undefined);
  if (!text) throw new MissingWebhookHeaderError(name);
  return text;
}

/** The HMAC key of a secret: the base64 after `whsec_` (or the whole string when it has no prefix). */
function keyOf(secret: string): Buffer {
  if (typeof secret !== 'string' || secret.length === 0) throw new WebhookSecretError('empty signing secret');
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded.length === 0 || !BASE64.test(encoded))
    throw new WebhookSecretError('a signing secret must be "whsec_" followed by base64');
  return Buffer.from(encoded, 'base64');
}

/**
 * Checks a webhook's headers and raw body against the destination's secret(s) and returns the parsed
 * event. Pass the body exactly as received (before any JSON parsing); pass both secrets during a
 * rotation. Throws a WebhookVerificationError subclass when the request must be refused (answer 4xx), a
 * WebhookSecretError when the secret itself is malformed (a configuration error: answer 5xx).
 */
export function verify<T = unknown>(
  headers: WebhookHeaders,
  body: string | Uint8Array,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): T {
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0) throw new WebhookSecretError('no signing secret');
  const keys = secrets.map(keyOf);
  const id = header(headers, WEBHOOK_ID_HEADER);
  const timestamp = header(headers, WEBHOOK_TIMESTAMP_HEADER);
  const signatures = header(headers, WEBHOOK_SIGNATURE_HEADER);

  if (!/^\d{1,15}$/.test(timestamp))
    throw new WebhookTimestampError('webhook-timestamp is not a number of seconds');
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now?.() ?? new Date()).getTime() / 1000);
  const age = nowSeconds - Number(timestamp);
  if (age > tolerance)
    throw new WebhookTimestampError(`webhook-timestamp is ${age} s old (tolerance ${tolerance} s)`);
  if (-age > tolerance)
    throw new WebhookTimestampError(
      `webhook-timestamp is ${-age} s in the future (tolerance ${tolerance} s)`,
    );

  const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), raw]);
  const expected = keys.map((key) => createHmac('sha256', key).update(signed).digest());
  // Other versions (v1a, a future v2) are skipped, as the specification asks: only v1 is HMAC-SHA256.
  const offered = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'));
  const matches = offered.some((candidate) =>
    expected.some((mac) => candidate.length === mac.length && timingSafeEqual(candidate, mac)),
  );
  if (!matches) throw new WebhookSignatureError();
  try {
    return JSON.parse(raw.toString('utf8')) as T;
  } catch (error) {
    throw new WebhookPayloadError(error);
  }
}
