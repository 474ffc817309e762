/**
 * Client-side helper for Airtel message signing (Airtel Money Open API docs, message signing), for tests and tools
 * that call the simulator (or the real service) the way a partner does:
 *   x-signature = base64(AES-256-CBC(key, iv, payload))
 *   x-key       = base64(RSA-OAEP-SHA256(publicKey, base64(key) + ":" + base64(iv)))
 */
import {
  constants,
  createCipheriv,
  createPublicKey,
  type KeyObject,
  publicEncrypt,
  randomBytes,
} from 'node:crypto';

export interface SignedAirtelRequest {
  /** The exact text to send as the request body (the signature covers these bytes). */
  body: string;
  headers: { 'x-signature': string; 'x-key': string };
}

/**
 * Accepts a PEM public key or the bare base64 DER (SubjectPublicKeyInfo) that the encryption-keys
 * operation returns in `data.key`.
 */
function airtelPublicKey(key: string): KeyObject {
  const trimmed = key.trim();
  if (trimmed.startsWith('-----BEGIN')) return createPublicKey(trimmed);
  return createPublicKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'spki' });
}

export function aes256CbcBase64(plain: string | Buffer, key: Buffer, iv: Buffer): string {
  const cipher = createCipheriv('aes-256-cbc', key, iv); // PKCS#7 padding = Java's PKCS5Padding
  return Buffer.concat([cipher.update(plain), cipher.final()]).toString('base64');
}

function rsaOaepBase64(publicKey: string, plain: string): string {
  return publicEncrypt(
    { key: airtelPublicKey(publicKey), padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from(plain, 'utf8'),
  ).toString('base64');
}

export function signAirtelRequest(payload: unknown, publicKey: string): SignedAirtelRequest {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const key = randomBytes(32);
  const iv = randomBytes(16);
  return {
    body,
    headers: {
      'x-signature': aes256CbcBase64(body, key, iv),
      'x-key': rsaOaepBase64(publicKey, `${key.toString('base64')}:${iv.toString('base64')}`),
    },
  };
}
