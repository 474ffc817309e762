import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { SEAL_ATTRIBUTE, sealMatches } from '../../../shared/app/buffer/ingress-buffer';
import type { BufferedCallback } from '../../../shared/app/ports';
import { bufferSealKeyFromEnv, ingressBufferFromEnv } from '../../../shared/runtime/ingress-buffer';

const sqs = mockClient(SQSClient);
// The mock patches the client class every later file of this worker shares: undo it.
afterAll(() => sqs.restore());
afterEach(() => sqs.reset());

const KEY = 'seal-key-0123456789abcdef0123456789abcdef';
const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/relay-ingress-buffer';

describe('the callback function’s ingress buffer wiring', () => {
  it('seals messages with the key from the secret INGRESS_BUFFER_SEAL_SECRET_ID names', async () => {
    // Prepare
    sqs.on(SendMessageCommand).resolves({ MessageId: 'sqs-1' });
    const read = vi.fn(async () => KEY);
    const warn = vi.fn();

    // Act
    const buffer = await ingressBufferFromEnv(
      { warn, error: vi.fn() },
      {
        INGRESS_BUFFER_QUEUE_URL: QUEUE_URL,
        INGRESS_BUFFER_SEAL_SECRET_ID: 'relay/buffer-seal',
        AWS_REGION: 'eu-west-1',
      },
      read,
    );
    await buffer!.accept({ version: 1, kind: 'callback' } as unknown as BufferedCallback);

    // Assess
    expect(read).toHaveBeenCalledWith('relay/buffer-seal');
    const input = sqs.commandCalls(SendMessageCommand)[0]!.args[0].input;
    expect(
      sealMatches(
        input.MessageBody!,
        input.MessageAttributes?.[SEAL_ATTRIBUTE]?.StringValue,
        Buffer.from(KEY),
      ),
    ).toBe(true);
    expect(warn).not.toHaveBeenCalled();
  });

  it('says once at cold start that messages are not sealed when no key is configured', async () => {
    const warn = vi.fn();

    const key = await bufferSealKeyFromEnv({ warn }, {}, vi.fn());

    expect(key).toBeUndefined();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('not sealed'));
  });

  it('refuses a seal key shorter than 32 characters', async () => {
    await expect(
      bufferSealKeyFromEnv({ warn: vi.fn() }, { INGRESS_BUFFER_SEAL_SECRET_ID: 's' }, async () => 'short'),
    ).rejects.toThrow(/shorter than 32/);
  });

  it('runs without a buffer (503 on outages) when no queue is configured', async () => {
    const warn = vi.fn();

    const buffer = await ingressBufferFromEnv({ warn, error: vi.fn() }, {});

    expect(buffer).toBeUndefined();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('INGRESS_BUFFER_QUEUE_URL is not set'));
  });

  it('runs without a buffer, never unsealed, when the seal key cannot be read at cold start', async () => {
    // Prepare
    const error = vi.fn();
    const unreadable = async () => {
      throw new Error('AccessDeniedException: not authorized');
    };

    // Act
    const buffer = await ingressBufferFromEnv(
      { warn: vi.fn(), error },
      { INGRESS_BUFFER_QUEUE_URL: QUEUE_URL, INGRESS_BUFFER_SEAL_SECRET_ID: 'relay/buffer-seal' },
      unreadable,
    );

    // Assess
    expect(buffer).toBeUndefined();
    expect(error).toHaveBeenCalledWith(
      expect.stringContaining('seal key could not be read'),
      expect.objectContaining({ error: expect.stringContaining('AccessDenied') }),
    );
  });
});
