import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the two AWS services an sqs destination talks to, on 127.0.0.1, for the real
 * @aws-sdk/client-sqs and @aws-sdk/client-sts (no SQS emulator from the npm registry checks signatures or
 * answers AssumeRole, and none can be told to throttle or refuse). It is strict where the relay could be
 * wrong and AWS would notice:
 *
 * - every request's SigV4 signature is recomputed from the credentials it knows (an unknown key or a bad
 *   signature gets SQS's own `IncompleteSignature`/`InvalidClientTokenId`), and the scope's region and
 *   service are recorded, with the session token;
 * - SQS speaks the AWS JSON 1.0 protocol (`x-amz-target: AmazonSQS.<Action>`), its errors in the shape of
 *   the SQS developer guide ("Interpreting Amazon SQS JSON API responses": `x-amzn-query-error` header,
 *   `__type` body); SendMessage answers the MD5 of the body and of the message attributes by AWS's
 *   algorithm (the SDK checks the body's), FIFO queues need a group and drop a repeated deduplication id;
 * - STS speaks the query protocol (form body, XML answer) for AssumeRole, with the trust policy's
 *   external id condition.
 *
 * What it does not do: IAM beyond "this key may sign", queue policies, KMS, receive/delete.
 */

interface KnownCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

interface ReceivedMessage {
  queue: string;
  body: string;
  attributes: Record<string, { DataType: string; StringValue?: string }>;
  messageGroupId?: string;
  messageDeduplicationId?: string;
  messageId: string;
  /** The signature's scope and the key that signed the SendMessage. */
  signedBy: { accessKeyId: string; region: string; service: string; sessionToken?: string };
}

/** A scripted answer to the next SendMessage calls (then the queue answers normally again). */
type SqsFault = 'throttled' | 'access-denied';

interface AssumeRoleTrust {
  roleArn: string;
  externalId?: string;
}

interface SigV4Result {
  accessKeyId: string;
  region: string;
  service: string;
  sessionToken?: string;
}

const SQS_ERRORS: Record<SqsFault, { status: number; queryError: string; type: string; message: string }> = {
  // Both as the SQS JSON protocol sends them: the query-compatible code in the header, the shape in __type.
  throttled: {
    status: 400,
    queryError: 'RequestThrottled;Sender',
    type: 'com.amazonaws.sqs#RequestThrottled',
    message: 'Request is throttled.',
  },
  'access-denied': {
    status: 403,
    queryError: 'AccessDenied;Sender',
    type: 'com.amazon.coral.service#AccessDeniedException',
    message: 'User is not authorized to perform: sqs:sendmessage on resource',
  },
};

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** AWS's MD5 of message attributes: per name in order, length-prefixed name, type, transport byte, value. */
function md5OfMessageAttributes(
  attributes: Record<string, { DataType: string; StringValue?: string }>,
): string {
  const hash = createHash('md5');
  const lengthPrefixed = (value: string) => {
    const bytes = Buffer.from(value, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length);
    hash.update(bytes);
  };
  for (const name of Object.keys(attributes).sort()) {
    const attribute = attributes[name]!;
    lengthPrefixed(name);
    lengthPrefixed(attribute.DataType);
    hash.update(Buffer.from([1])); // 1: a String (or Number) value
    lengthPrefixed(attribute.StringValue ?? '');
  }
  return hash.digest('hex');
}

export class LocalAwsEndpoint {
  readonly messages: ReceivedMessage[] = [];
  readonly assumeRoleCalls: { roleArn: string; externalId?: string; sessionName: string; by: string }[] = [];
  /** Requests refused for their signature, with SQS's reason. */
  readonly refusedSignatures: string[] = [];
  private readonly credentials = new Map<string, KnownCredentials>();
  private readonly queues = new Set<string>();
  private readonly faults: SqsFault[] = [];
  private readonly trusts: AssumeRoleTrust[] = [];
  private readonly dedup = new Set<string>();
  private server: Server | undefined;
  url = '';

  /**
   * `emulator`: queues are addressed by the URLs GetQueueUrl answers (this host, account 000000000000), as
   * an emulator's are; `aws`: by `https://sqs.<region>.amazonaws.com/<account>/<name>` in the region the
   * request was signed for, as SQS's are.
   */
  constructor(private readonly addressing: 'emulator' | 'aws') {}

  /** A key the endpoint accepts signatures from (the process's own, or an assumed session's). */
  acceptCredentials(credentials: KnownCredentials): this {
    this.credentials.set(credentials.accessKeyId, credentials);
    return this;
  }

  /** A queue by name: found by GetQueueUrl, addressed by the URL that answers or by its AWS URL. */
  createQueue(name: string): this {
    this.queues.add(name);
    return this;
  }

  /** A role the endpoint's STS lets any known key assume, with the trust policy's external id if set. */
  trustRole(trust: AssumeRoleTrust): this {
    this.trusts.push(trust);
    return this;
  }

  /** The next SendMessage calls answer these errors, one each, in order. */
  failNextSends(...faults: SqsFault[]): this {
    this.faults.push(...faults);
    return this;
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => this.handle(request, Buffer.concat(chunks).toString('utf8'), response));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private handle(request: IncomingMessage, body: string, response: ServerResponse) {
    const signed = this.verifySignature(request, body);
    const target = String(request.headers['x-amz-target'] ?? '');
    if (target.startsWith('AmazonSQS.')) {
      if ('refused' in signed)
        return this.sqsError(response, 403, `${signed.refused};Sender`, signed.refused, signed.refused);
      return this.sqs(
        target.slice('AmazonSQS.'.length),
        JSON.parse(body) as Record<string, unknown>,
        signed,
        response,
      );
    }
    const form = new URLSearchParams(body);
    if (form.get('Action') === 'AssumeRole') {
      if ('refused' in signed) return this.stsError(response, 403, signed.refused, signed.refused);
      return this.assumeRole(form, signed, response);
    }
    response.writeHead(400, { 'content-type': 'text/plain' }).end(`unknown request ${target}`);
  }

  /** SigV4 as AWS checks it: the canonical request rebuilt from the signed headers, the key derived per scope. */
  private verifySignature(request: IncomingMessage, body: string): SigV4Result | { refused: string } {
    const authorization = String(request.headers.authorization ?? '');
    const match =
      /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
        authorization,
      );
    const refuse = (reason: string) => {
      this.refusedSignatures.push(reason);
      return { refused: reason };
    };
    if (!match) return refuse('IncompleteSignature');
    const [, accessKeyId, date, region, service, signedHeaders, signature] = match as unknown as string[];
    const known = this.credentials.get(accessKeyId!);
    if (!known) return refuse('InvalidClientTokenId');
    const sessionToken = request.headers['x-amz-security-token'] as string | undefined;
    if (known.sessionToken !== undefined && known.sessionToken !== sessionToken)
      return refuse('InvalidClientTokenId');
    const amzDate = String(request.headers['x-amz-date'] ?? '');
    const names = signedHeaders!.split(';');
    if (!names.includes('host') || !names.includes('x-amz-date')) return refuse('IncompleteSignature');
    const url = new URL(request.url ?? '/', 'http://placeholder');
    const canonicalQuery = [...url.searchParams.entries()]
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
      .sort()
      .join('&');
    const canonicalHeaders = names
      .map(
        (name) =>
          `${name}:${String(request.headers[name] ?? '')
            .trim()
            .replace(/\s+/g, ' ')}\n`,
      )
      .join('');
    const payloadHash = (request.headers['x-amz-content-sha256'] as string | undefined) ?? sha256(body);
    const canonicalRequest = [
      request.method,
      url.pathname,
      canonicalQuery,
      canonicalHeaders,
      signedHeaders,
      payloadHash,
    ].join('\n');
    const scope = `${date}/${region}/${service}/aws4_request`;
    const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
    const key = hmac(
      hmac(hmac(hmac(`AWS4${known.secretAccessKey}`, date!), region!), service!),
      'aws4_request',
    );
    const expected = createHmac('sha256', key).update(toSign).digest();
    if (!timingSafeEqual(expected, Buffer.from(signature!, 'hex'))) return refuse('SignatureDoesNotMatch');
    return {
      accessKeyId: accessKeyId!,
      region: region!,
      service: service!,
      ...(sessionToken !== undefined ? { sessionToken } : {}),
    };
  }

  private sqs(action: string, input: Record<string, unknown>, signed: SigV4Result, response: ServerResponse) {
    if (action === 'GetQueueUrl') {
      const name = String(input.QueueName ?? '');
      if (!this.queues.has(name)) return this.nonExistentQueue(response);
      return this.json(response, { QueueUrl: `${this.url}/000000000000/${name}` });
    }
    if (action !== 'SendMessage')
      return this.sqsError(response, 400, 'InvalidAction;Sender', 'com.amazonaws.sqs#InvalidAction', action);
    const fault = this.faults.shift();
    if (fault) {
      const error = SQS_ERRORS[fault];
      return this.sqsError(response, error.status, error.queryError, error.type, error.message);
    }
    const queue = this.queueOf(input.QueueUrl, signed.region);
    if (queue === undefined) return this.nonExistentQueue(response);
    const fifo = queue.endsWith('.fifo');
    const groupId = input.MessageGroupId as string | undefined;
    const dedupId = input.MessageDeduplicationId as string | undefined;
    if (fifo && (!groupId || !dedupId))
      return this.sqsError(
        response,
        400,
        'MissingParameter;Sender',
        'com.amazonaws.sqs#MissingParameter',
        'The request must contain the parameter MessageGroupId.',
      );
    const body = String(input.MessageBody ?? '');
    const attributes = (input.MessageAttributes ?? {}) as ReceivedMessage['attributes'];
    const messageId = randomUUID();
    const answer = {
      MessageId: messageId,
      MD5OfMessageBody: createHash('md5').update(body).digest('hex'),
      ...(Object.keys(attributes).length
        ? { MD5OfMessageAttributes: md5OfMessageAttributes(attributes) }
        : {}),
      ...(fifo ? { SequenceNumber: String(this.messages.length + 1).padStart(20, '0') } : {}),
    };
    // A FIFO queue drops a message whose deduplication id it saw (SQS: within 5 minutes; here: for the
    // endpoint's life, a test's), and answers as if it took it.
    const dedupKey = `${queue}\n${dedupId}`;
    if (fifo && this.dedup.has(dedupKey)) return this.json(response, answer);
    if (fifo) this.dedup.add(dedupKey);
    this.messages.push({
      queue,
      body,
      attributes,
      ...(groupId !== undefined ? { messageGroupId: groupId } : {}),
      ...(dedupId !== undefined ? { messageDeduplicationId: dedupId } : {}),
      messageId,
      signedBy: signed,
    });
    return this.json(response, answer);
  }

  /**
   * The queue a QueueUrl names, by the endpoint's addressing; any other URL (another region, another host)
   * is no queue.
   */
  private queueOf(url: unknown, signedRegion: string): string | undefined {
    if (typeof url !== 'string') return undefined;
    const name =
      this.addressing === 'emulator'
        ? url.startsWith(`${this.url}/000000000000/`)
          ? url.slice(`${this.url}/000000000000/`.length)
          : undefined
        : new RegExp(`^https://sqs\\.${signedRegion}\\.amazonaws\\.com/\\d{12}/([^/]+)$`).exec(url)?.[1];
    return name !== undefined && this.queues.has(name) ? name : undefined;
  }

  private assumeRole(form: URLSearchParams, signed: SigV4Result, response: ServerResponse) {
    const roleArn = form.get('RoleArn') ?? '';
    const externalId = form.get('ExternalId') ?? undefined;
    this.assumeRoleCalls.push({
      roleArn,
      ...(externalId !== undefined ? { externalId } : {}),
      sessionName: form.get('RoleSessionName') ?? '',
      by: signed.accessKeyId,
    });
    const trust = this.trusts.find((t) => t.roleArn === roleArn);
    if (!trust || (trust.externalId !== undefined && trust.externalId !== externalId))
      return this.stsError(
        response,
        403,
        'AccessDenied',
        `User: ${signed.accessKeyId} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`,
      );
    const n = this.assumeRoleCalls.length;
    const session = {
      accessKeyId: `ASIALOCALSESSION${n}`,
      secretAccessKey: `session-secret-${n}-${randomUUID()}`,
      sessionToken: `session-token-${n}-${randomUUID()}`,
    };
    this.acceptCredentials(session);
    const expiration = new Date(Date.now() + Number(form.get('DurationSeconds') ?? 3600) * 1000);
    response
      .writeHead(200, { 'content-type': 'text/xml', 'x-amzn-requestid': randomUUID() })
      .end(
        `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>` +
          `<Credentials><AccessKeyId>${session.accessKeyId}</AccessKeyId><SecretAccessKey>${session.secretAccessKey}</SecretAccessKey>` +
          `<SessionToken>${session.sessionToken}</SessionToken><Expiration>${expiration.toISOString()}</Expiration></Credentials>` +
          `<AssumedRoleUser><Arn>${roleArn}/${form.get('RoleSessionName')}</Arn><AssumedRoleId>AROALOCAL:${form.get('RoleSessionName')}</AssumedRoleId></AssumedRoleUser>` +
          `</AssumeRoleResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></AssumeRoleResponse>`,
      );
  }

  private nonExistentQueue(response: ServerResponse) {
    this.sqsError(
      response,
      400,
      'AWS.SimpleQueueService.NonExistentQueue;Sender',
      'com.amazonaws.sqs#QueueDoesNotExist',
      'The specified queue does not exist.',
    );
  }

  private json(response: ServerResponse, body: unknown) {
    response
      .writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': randomUUID() })
      .end(JSON.stringify(body));
  }

  private sqsError(
    response: ServerResponse,
    status: number,
    queryError: string,
    type: string,
    message: string,
  ) {
    response
      .writeHead(status, {
        'content-type': 'application/x-amz-json-1.0',
        'x-amzn-requestid': randomUUID(),
        'x-amzn-query-error': queryError,
      })
      .end(JSON.stringify({ __type: type, message }));
  }

  private stsError(response: ServerResponse, status: number, code: string, message: string) {
    response
      .writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': randomUUID() })
      .end(
        `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code>` +
          `<Message>${message}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
      );
  }
}
