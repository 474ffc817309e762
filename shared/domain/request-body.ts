import type { InboundRequest } from '../http/types';
import {
  MalformedJsonError,
  PayloadTooLargeError,
  SchemaValidationError,
  UnsupportedMediaTypeError,
} from './errors';

const JSON_MEDIA_TYPES = /^(application\/([\w.+-]+\+)?json|text\/json|text\/plain)$/i;

/** Size, media type and JSON checks shared by every route; the body must be a JSON object. */
export function parseJsonObjectBody(request: InboundRequest, maxBodyBytes: number): Record<string, unknown> {
  if (request.rawBody.length > maxBodyBytes) {
    throw new PayloadTooLargeError(`Body is ${request.rawBody.length} bytes; the limit is ${maxBodyBytes}`);
  }
  const contentType = request.headers['content-type']?.split(';')[0]?.trim();
  // Providers are inconsistent about content type; a missing one is tolerated, a non-JSON one is not.
  if (contentType && !JSON_MEDIA_TYPES.test(contentType)) {
    throw new UnsupportedMediaTypeError(`Content-Type ${contentType} is not JSON; send application/json`);
  }
  let body: unknown;
  try {
    body = JSON.parse(request.rawBody.toString('utf8'));
  } catch (cause) {
    throw new MalformedJsonError(`Body is not valid JSON: ${(cause as Error).message}`, { cause });
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new SchemaValidationError('Body must be a JSON object');
  }
  return body as Record<string, unknown>;
}
