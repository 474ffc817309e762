/**
 * What a destination type reaches the world through (docs/webhooks.md#destination-types). A type folder is
 * pure code; the composition roots hand it these ports, implemented by adapters (node http/https with a
 * connect-time address guard: shared/adapters/webhooks/http-sender.ts; SQS and STS:
 * shared/adapters/sqs/partner-queue.ts).
 */

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Local simulator only: the destination may resolve to loopback / private addresses. */
  allowPrivateAddresses: boolean;
}

export type WebhookResponse =
  | {
      kind: 'answered';
      status: number;
      /** Seconds from `Retry-After` (delta-seconds or an HTTP date), when the destination sent one. */
      retryAfterSeconds?: number;
      /** The first bytes of the body (bounded by the sender), not yet scrubbed. */
      excerpt: string;
    }
  | {
      /** No HTTP answer: refused address, DNS, connection, TLS or time-out. Never carries a secret. */
      kind: 'failed';
      error: string;
    };

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

/**
 * One attempt's answer, whatever the type: an HTTP answer (the engine reads its status: 2xx delivered,
 * 410 disables, 429/503 Retry-After), `failed` (retried on the schedule), `accepted` (delivered, no HTTP
 * status: a queue took the message) or `rejected` (the destination will never accept: disabled as a 410 is).
 */
export type DeliveryAnswer =
  | WebhookResponse
  | { kind: 'accepted'; excerpt: string }
  /** `detail`: why, short and free of URLs and secrets: the DestinationDisabled event's detail. */
  | { kind: 'rejected'; error: string; detail: string };

/** Temporary AWS credentials (an assumed role's session). */
export interface RoleCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

/** STS AssumeRole (the partner's role, in their account). Errors keep the SDK's `name` (AccessDenied…). */
export interface RoleAssumer {
  assumeRole(request: {
    roleArn: string;
    externalId?: string;
    sessionName: string;
    durationSeconds: number;
  }): Promise<RoleCredentials>;
}

/** One SQS SendMessage to a queue the relay does not own. Errors keep the SDK's `name`. */
export interface PartnerQueueMessage {
  queueUrl: string;
  region: string;
  /** Absent behind an emulator's `endpoint` (npm start): placeholder credentials, as an emulator checks none. */
  credentials?: RoleCredentials;
  /** An emulator's URL (npm start only). */
  endpoint?: string;
  body: string;
  attributes: Record<string, string>;
  /** FIFO queues only. */
  messageGroupId?: string;
  messageDeduplicationId?: string;
  /** The attempt's time-out, as an HTTP destination's. */
  timeoutMs: number;
}

export interface PartnerQueueSender {
  send(message: PartnerQueueMessage): Promise<{ messageId: string }>;
}

/** Every port a type may use; a type uses the ones it needs, and says at start when one is missing. */
export interface DestinationIo {
  http: WebhookSender;
  queues?: PartnerQueueSender;
  roles?: RoleAssumer;
  /** The clock credential caches read (the engine's clock). */
  now: () => Date;
}
