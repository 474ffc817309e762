export {
  DEFAULT_TOLERANCE_SECONDS,
  MissingWebhookHeaderError,
  verify,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  WebhookPayloadError,
  WebhookSecretError,
  WebhookSignatureError,
  WebhookTimestampError,
  WebhookVerificationError,
  type VerifyOptions,
  type WebhookHeaders,
} from './verify.js';
export {
  defaultVersionOf,
  IdempotentConsumer,
  MemoryIdempotencyStore,
  type ConsumableEvent,
  type ConsumeResult,
  type IdempotencyStore,
  type IdempotentConsumerOptions,
} from './idempotent.js';
export * from './events.js';
export { isRelayEvent } from './guards.js';
