import { Md5 as SdkMd5, Sha256 as SdkSha256 } from '@smithy/core/checksum';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Md5, Sha256 } from '../../../infra/lambda-shims/native-checksums';
import * as noEventStreams from '../../../infra/lambda-shims/no-event-streams';

/*
 * The Lambda bundles replace `@smithy/core/checksum` with node:crypto-only Sha256 and Md5 (infra/bundling.ts
 * alias): every digest the SDK computes (SigV4 hashes and HMAC signing keys, SQS message MD5s) must be
 * byte for byte the SDK's own, whatever the input form and however updates are split or reset.
 */

/** What the SDK hashes: text and byte views (a view into the middle of a larger buffer included). */
const chunk = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.uint8Array({ maxLength: 200 }),
  fc.uint8Array({ minLength: 4, maxLength: 200 }).map((a) => new DataView(a.buffer, 1, a.length - 2)),
);
/** HMAC keys: the same, or a bare ArrayBuffer (SigV4's derived signing keys). */
const secret = fc.oneof(
  chunk,
  fc.uint8Array({ maxLength: 64 }).map((a) => a.buffer as ArrayBuffer),
);

type Checksum = {
  update(data: string | ArrayBuffer | ArrayBufferView): void;
  digest(): Promise<Uint8Array>;
  reset(): void;
};

async function run(hash: Checksum, chunks: Array<string | ArrayBufferView>, resetAt: number) {
  for (const [i, data] of chunks.entries()) {
    if (i === resetAt) hash.reset();
    hash.update(data);
  }
  return Buffer.from(await hash.digest()).toString('hex');
}

describe('the checksum shim of the Lambda bundles', () => {
  it('hashes any input as the SDK does (SHA-256, HMAC-SHA-256, MD5), split updates and a reset included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(chunk, { maxLength: 5 }),
        fc.option(secret, { nil: undefined }),
        fc.integer({ min: -1, max: 5 }),
        async (chunks, secret, resetAt) => {
          // Prepare
          const pairs: Array<[Checksum, Checksum]> = [
            [new SdkSha256(secret), new Sha256(secret)],
            [new SdkMd5(), new Md5()],
          ];
          for (const [sdk, shim] of pairs) {
            // Act
            const expected = await run(sdk, chunks, resetAt);
            const actual = await run(shim, chunks, resetAt);
            // Assess
            expect(actual).toEqual(expected);
          }
        },
      ),
    );
  });

  it('refuses an update after an HMAC digest, as the SDK does', async () => {
    // Prepare
    const hmac = new Sha256('key');
    hmac.update('a');
    await hmac.digest();
    // Act, Assess
    expect(() => hmac.update('b')).toThrow('Attempted to update an already finished hash.');
  });

  it('digests a plain hash again after more data (a running hash)', async () => {
    // Prepare
    const sdk: Checksum = new SdkSha256();
    const shim: Checksum = new Sha256();
    for (const h of [sdk, shim]) h.update('a');
    await Promise.all([sdk.digest(), shim.digest()]);
    // Act
    for (const h of [sdk, shim]) h.update('b');
    // Assess
    expect(Buffer.from(await shim.digest())).toEqual(Buffer.from(await sdk.digest()));
  });
});

describe('the event-stream shim of the Lambda bundles', () => {
  it('fails loudly, naming the alias to remove, if an operation ever streams events', () => {
    // Act, Assess
    expect(() => noEventStreams.eventStreamSerdeProvider()).toThrow(/no-event-streams/);
    expect(() => new noEventStreams.EventStreamSerde()).toThrow(/remove the alias/);
  });
});
