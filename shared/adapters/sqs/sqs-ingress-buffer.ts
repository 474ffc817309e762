import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { captureClient } from '../tracing/xray';
import {
  BufferedMessageTooLargeError,
  IngressBufferUnavailableError,
  SEAL_ATTRIBUTE,
  sealOf,
} from '../../app/buffer/ingress-buffer';
import type { BufferedMessage, IngressBuffer } from '../../app/ports';

/** SQS refuses a message over 256 KiB (body and attributes together; this adapter sends no attributes). */
export const SQS_MAX_MESSAGE_BYTES = 256 * 1024;

export interface SqsIngressBufferOptions {
  queueUrl: string;
  /** Upper bound of one accept, whatever the caller's signal says. @default 1500 */
  timeoutMs?: number;
  /** @default SQS_MAX_MESSAGE_BYTES */
  maxMessageBytes?: number;
  /** Seals every message (attribute `relay-seal`), so the consumer applies only what this function wrote. */
  sealKey?: Buffer;
}

/**
 * The SQS client for the buffer: short per-attempt timeouts and the SDK's standard retry strategy
 * (throttling and 5xx retried with backoff), all of it cut by the abort signal of accept(), so retries
 * only use what is left of the ack budget.
 */
export function createSqsBufferClient(options: { region?: string; endpoint?: string } = {}): SQSClient {
  return captureClient(
    new SQSClient({
      region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      maxAttempts: 3,
      retryMode: 'standard',
      requestHandler: { connectionTimeout: 300, requestTimeout: 600, throwOnRequestTimeout: true },
    }),
  );
}

/**
 * SQS text may not hold U+FFFE or U+FFFF (JSON.stringify leaves them as they are); inside JSON strings,
 * which is the only place they can be, their escapes mean the same.
 */
function sqsSafe(json: string): string {
  return json.replace(/[\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** What the seal attribute costs of SQS's message size: its name, data type and 64 hex digits. */
const SEAL_ATTRIBUTE_BYTES = SEAL_ATTRIBUTE.length + 'String'.length + 64;

/**
 * The ingress buffer on an SQS queue (the callback function's INGRESS_BUFFER_QUEUE_URL). A message
 * over SQS's limit is refused whole (BufferedMessageTooLargeError, so the provider gets a 503) rather
 * than truncated: a truncated payment callback could not be applied like the direct path, and the
 * poller still finds the transaction's status. Every failure is an IngressBufferUnavailableError.
 */
export class SqsIngressBuffer implements IngressBuffer {
  private readonly timeoutMs: number;
  private readonly maxMessageBytes: number;

  constructor(
    private readonly client: SQSClient,
    private readonly options: SqsIngressBufferOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? 1500;
    this.maxMessageBytes = options.maxMessageBytes ?? SQS_MAX_MESSAGE_BYTES;
  }

  async accept(message: BufferedMessage, options: { signal?: AbortSignal } = {}): Promise<{ id: string }> {
    const body = sqsSafe(JSON.stringify(message));
    // SQS counts message attributes (the seal) in the same limit.
    const bytes = Buffer.byteLength(body) + (this.options.sealKey ? SEAL_ATTRIBUTE_BYTES : 0);
    if (bytes > this.maxMessageBytes)
      throw new BufferedMessageTooLargeError(
        `Buffered callback is ${bytes} bytes; the queue takes at most ${this.maxMessageBytes}`,
      );
    const timeout = AbortSignal.timeout(Math.max(1, Math.floor(this.timeoutMs)));
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    try {
      const sent = await this.client.send(
        new SendMessageCommand({
          QueueUrl: this.options.queueUrl,
          MessageBody: body,
          ...(this.options.sealKey
            ? {
                MessageAttributes: {
                  [SEAL_ATTRIBUTE]: { DataType: 'String', StringValue: sealOf(body, this.options.sealKey) },
                },
              }
            : {}),
        }),
        { abortSignal: signal },
      );
      if (!sent.MessageId) throw new Error('SendMessage answered without a MessageId');
      return { id: sent.MessageId };
    } catch (error) {
      const name = (error as Error).name;
      const why = signal.aborted ? 'aborted (out of time)' : `${name}: ${(error as Error).message}`;
      throw new IngressBufferUnavailableError(`SQS SendMessage failed: ${why}`, { cause: error });
    }
  }
}
