import { constants, type KeyObject, privateDecrypt, timingSafeEqual } from 'node:crypto';
import { aes256CbcBase64 } from './signing';

export class AirtelSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AirtelSignatureError';
  }
}

/**
 * Server side of message signing: recover key and iv from `x-key`, encrypt the received bytes the same
 * way and compare with `x-signature`. Any failure is the same forbidden answer (DP00800001026).
 */
export function verifyAirtelSignature(
  rawBody: Buffer,
  xSignature: string | undefined,
  xKey: string | undefined,
  privateKey: KeyObject,
): void {
  if (!xSignature || !xKey) throw new AirtelSignatureError('x-signature and x-key headers are required');
  let keyIv: string;
  try {
    keyIv = privateDecrypt(
      { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from(xKey, 'base64'),
    ).toString('utf8');
  } catch {
    throw new AirtelSignatureError('x-key could not be decrypted');
  }
  const [keyB64, ivB64] = keyIv.split(':');
  const key = Buffer.from(keyB64 ?? '', 'base64');
  const iv = Buffer.from(ivB64 ?? '', 'base64');
  if (key.length !== 32 || iv.length !== 16)
    throw new AirtelSignatureError('x-key does not hold a 256-bit key and 128-bit iv');
  const expected = Buffer.from(aes256CbcBase64(rawBody, key, iv));
  const given = Buffer.from(xSignature.trim());
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw new AirtelSignatureError('x-signature and payload did not match');
  }
}
