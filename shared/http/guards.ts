import { type CallbackConfig, ORIGIN_VERIFY_HEADER } from '../config/callback-config';
import {
  MalformedJsonError,
  OriginNotVerifiedError,
  PayloadTooLargeError,
  SchemaValidationError,
  UnsupportedMediaTypeError,
} from '../domain/errors';
import { normalizeIp } from '../util/ip-allowlist';
import { jsonLimitProblem } from '../util/json-limits';
import type { InboundRequest } from './types';
import { secretMatches } from './router';

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
    // TextDecoder drops a UTF-8 byte-order mark first (.NET's and some Java stacks' default writers send
    // one): RFC 8259 §8.1 lets a parser ignore it, and refusing it would quarantine a genuine callback. The
    // stored and hashed bytes stay as sent.
    body = JSON.parse(new TextDecoder().decode(request.rawBody));
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

/** Set by CloudFront (the origin request policy forwards it): the viewer's `IP:port`. */
const VIEWER_ADDRESS_HEADER = 'cloudfront-viewer-address';

/** `IP:port` → IP. The last colon separates the port (`2001:db8::1:46532` → `2001:db8::1`). */
export function viewerIpOf(value: string | undefined): string | undefined {
  const colon = value?.lastIndexOf(':') ?? -1;
  if (!value || colon < 1 || !/^\d{1,5}$/.test(value.slice(colon + 1))) return undefined;
  return normalizeIp(value.slice(0, colon));
}

/** Constant time per candidate, every candidate compared (no early exit), hashes of fixed length. */
function matchesAny(candidates: readonly string[], given: string): boolean {
  let matched = false;
  for (const candidate of candidates) matched = secretMatches(candidate, given) || matched;
  return matched;
}

/**
 * The edge check (`edge.mode: "cloudfront"`): the request must carry one of the origin secrets in
 * ORIGIN_VERIFY_HEADER, else it went around CloudFront (`refusal`). The header is removed from the
 * request either way (nothing downstream stores it); only a verified request gets the viewer's IP from
 * `CloudFront-Viewer-Address` as its source IP. X-Forwarded-For is never read: any client can write it.
 * In `direct` mode, and without the header in `cloudfront-or-direct` mode, the request is unchanged.
 */
export function verifyEdge(
  edge: CallbackConfig['edge'] | undefined,
  request: InboundRequest,
): { request: InboundRequest; refusal?: OriginNotVerifiedError } {
  if (!edge || edge.mode === 'direct') return { request };
  const { [ORIGIN_VERIFY_HEADER]: given, ...headers } = request.headers;
  const stripped = { ...request, headers };
  if (given === undefined && edge.mode === 'cloudfront-or-direct') return { request };
  const viewerIp = viewerIpOf(headers[VIEWER_ADDRESS_HEADER]);
  const problem =
    given === undefined
      ? 'Origin verification header missing'
      : !matchesAny(edge.originVerifySecrets, given)
        ? 'Origin verification header wrong'
        : // Verified, so CloudFront set it (the origin request policy must forward it).
          !viewerIp && 'CloudFront-Viewer-Address missing or not IP:port';
  if (problem) {
    const refusal = new OriginNotVerifiedError(
      `${problem}: provider routes are served through CloudFront only`,
    );
    return { request: stripped, refusal };
  }
  return { request: { ...stripped, sourceIp: viewerIp as string } };
}
