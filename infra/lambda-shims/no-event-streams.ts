/**
 * Bundled in place of `@smithy/core/event-streams` (esbuild alias, see infra/bundling.ts). The SDK's
 * schema-based protocols load it with a dynamic `import()` only for an operation that streams events
 * (Bedrock, Transcribe, S3 SelectObjectContent…); none of the relay's clients (DynamoDB, SQS, Secrets
 * Manager, EventBridge) has one, yet esbuild bundles the dynamic import's whole codec: ~13 KB of every
 * bundle. Should a future client need event streams, this fails loudly instead of silently: remove the
 * alias. Only the Lambda bundles use this; local runs and tests keep the real module.
 */
const unsupported = (): never => {
  throw new Error('Event streams shimmed out: remove the alias (infra/lambda-shims/no-event-streams.ts)');
};

export const eventStreamSerdeProvider = unsupported;

export class EventStreamSerde {
  constructor() {
    unsupported();
  }
}
