import { fromEnv } from '@aws-sdk/credential-provider-env';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import type { StatementObjects } from '../../app/statements/import-object';

/** Thrown when S3 answers a read or write with an error status (the invocation is retried). */
class StatementObjectError extends Error {
  constructor(
    message: string,
    readonly status: number,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'StatementObjectError';
  }
}

export interface S3StatementObjectsOptions {
  region: string;
  /** Path-style endpoint (`http://127.0.0.1:4566`); absent: the region's virtual-hosted S3 endpoint. */
  endpoint?: string;
  credentials?: AwsCredentialIdentityProvider;
  fetch?: typeof fetch;
}

/** A key's path: each segment percent-encoded once (S3 signs the path as sent, uriEscapePath off). */
const encodeKey = (key: string) =>
  key
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      ),
    )
    .join('/');

/**
 * The statement bucket over S3's REST API: GetObject streamed, PutObject of a small JSON report, signed
 * with SigV4 by the SDK's own signer (@smithy/signature-v4) and the Lambda role's credentials from the
 * environment. Two calls do not warrant @aws-sdk/client-s3 in every bundle; this adapter is the one place
 * that would change if the relay took it on (the port is StatementObjects).
 */
export class S3StatementObjects implements StatementObjects {
  private readonly signer: SignatureV4;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: S3StatementObjectsOptions) {
    this.signer = new SignatureV4({
      service: 's3',
      region: options.region,
      credentials: options.credentials ?? fromEnv(),
      sha256: Sha256,
      uriEscapePath: false,
      applyChecksum: false,
    });
    this.fetch = options.fetch ?? fetch;
  }

  private async send(method: 'GET' | 'PUT', bucket: string, key: string, body?: string): Promise<Response> {
    const endpoint = this.options.endpoint
      ? new URL(this.options.endpoint)
      : new URL(`https://${bucket}.s3.${this.options.region}.amazonaws.com`);
    const path = this.options.endpoint ? `/${bucket}/${encodeKey(key)}` : `/${encodeKey(key)}`;
    const signed = await this.signer.sign({
      method,
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      ...(endpoint.port ? { port: Number(endpoint.port) } : {}),
      path,
      query: {},
      headers: {
        host: endpoint.host,
        // The body is not hashed into the signature: TLS protects it, and a stream cannot be hashed first.
        'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
        ...(body !== undefined
          ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }
          : {}),
      },
      ...(body !== undefined ? { body } : {}),
    });
    const { host: _host, ...headers } = signed.headers;
    const response = await this.fetch(`${endpoint.protocol}//${endpoint.host}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    if (!response.ok) {
      const text = (await response.text().catch(() => '')).slice(0, 300);
      const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? '';
      throw new StatementObjectError(
        `S3 ${method} s3://${bucket}/${key.slice(0, 200)}: ${response.status}${code ? ` ${code}` : ''}`,
        response.status,
      );
    }
    return response;
  }

  async *read(bucket: string, key: string): AsyncIterable<string> {
    const response = await this.send('GET', bucket, key);
    if (!response.body) return;
    const decoder = new TextDecoder('utf-8');
    // Chunk by chunk as S3 sends them: memory holds a chunk, never the file.
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      const text = decoder.decode(chunk, { stream: true });
      if (text) yield text;
    }
    const rest = decoder.decode();
    if (rest) yield rest;
  }

  async putJson(bucket: string, key: string, body: unknown): Promise<void> {
    const response = await this.send('PUT', bucket, key, `${JSON.stringify(body, null, 2)}\n`);
    await response.body?.cancel();
  }
}
