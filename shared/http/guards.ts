import {
  MalformedJsonError,
  PayloadTooLargeError,
  SchemaValidationError,
  UnsupportedMediaTypeError,
} from '../domain/errors';
import { jsonLimitProblem } from '../util/json-limits';
import type { InboundRequest } from './types';

const JSON_MEDIA_TYPES = /^(application\/([\w.+-]+\+)?json|text\/json|text\/plain)$/i;

/** Where JSON.parse stopped, without the body text V8 puts in its message (it may hold secrets). */
function parseErrorPosition(error: unknown): string {
  const match = /position (\d+)/.exec(error instanceof Error ? error.message : '');
  return match ? ` (at byte ${match[1]})` : '';
}

/**
 * Size, media type, JSON and structure checks shared by every route; the body must be a JSON object
 * within the structural limits (depth, reserved or oversized member names). Messages never quote the body.
 */
export function parseJsonObjectBody(request: InboundRequest, maxBodyBytes: number): Record<string, unknown> {
  if (request.rawBody.length > maxBodyBytes) {
    throw new PayloadTooLargeError(`Body is ${request.rawBody.length} bytes; the limit is ${maxBodyBytes}`);
  }
  const contentType = request.headers['content-type']?.split(';')[0]?.trim();
  // Providers are inconsistent about content type; a missing one is tolerated, a non-JSON one is not.
  if (contentType && !JSON_MEDIA_TYPES.test(contentType)) {
    throw new UnsupportedMediaTypeError(
      `Content-Type ${contentType.slice(0, 100)} is not JSON; send application/json`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(request.rawBody.toString('utf8'));
  } catch (cause) {
    throw new MalformedJsonError(`Body is not valid JSON${parseErrorPosition(cause)}`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new SchemaValidationError('Body must be a JSON object');
  }
  const problem = jsonLimitProblem(body);
  if (problem) throw new SchemaValidationError(`Body refused: ${problem}`);
  return body as Record<string, unknown>;
}
