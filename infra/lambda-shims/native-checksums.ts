import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

/**
 * Bundled in place of `@smithy/core/checksum` (esbuild alias, see infra/bundling.ts). The SDK clients
 * take only `Sha256` (request signing) and SQS `Md5` (message checksums) from it, and the SDK's own
 * versions carry pure-JavaScript fallbacks for runtimes without native crypto (~5 KB of every bundle);
 * Lambda's Node.js always has `node:crypto`. Same classes, native only. Only the Lambda bundles use
 * this; local runs and tests keep the SDK's module (test/unit/infra/native-checksums-shim.test.ts
 * compares the two).
 */
type SourceData = string | ArrayBuffer | ArrayBufferView;

function toBuffer(data: SourceData): string | Buffer {
  if (typeof data === 'string') return data;
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

const bytes = (buf: Buffer) => new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);

/** SHA-256, or HMAC-SHA-256 with a secret (SigV4's signing keys). */
export class Sha256 {
  readonly digestLength = 32;
  private hash: Hash | Hmac;
  private finished = false;

  constructor(private readonly secret?: SourceData) {
    this.hash = this.create();
  }

  update(data: SourceData): void {
    if (this.finished) throw new Error('Attempted to update an already finished hash.');
    this.hash.update(toBuffer(data));
  }

  async digest(): Promise<Uint8Array> {
    if (this.secret) {
      this.finished = true;
      return bytes((this.hash as Hmac).digest());
    }
    return bytes((this.hash as Hash).copy().digest());
  }

  reset(): void {
    this.hash = this.create();
    this.finished = false;
  }

  private create(): Hash | Hmac {
    return this.secret ? createHmac('sha256', toBuffer(this.secret)) : createHash('sha256');
  }
}

/** MD5 (SQS checks the MD5 of each message body it sends and receives). */
export class Md5 {
  readonly digestLength = 16;
  private hash = createHash('md5');

  update(data: SourceData): void {
    this.hash.update(toBuffer(data));
  }

  async digest(): Promise<Uint8Array> {
    return bytes(this.hash.copy().digest());
  }

  reset(): void {
    this.hash = createHash('md5');
  }
}
