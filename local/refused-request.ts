import { randomUUID } from 'node:crypto';
import { SECRET_HEADERS } from '../shared/app/callbacks/receipts';
import type { ReceivedRequest } from '../shared/app/ports';
import { MalformedRequestError, type RelayError, RequestTimeoutError } from '../shared/domain/errors';

/**
 * Records a request the local server refused itself (one Node's parser could not read, one over API
 * Gateway's quotas) where the relay records its refusals: the quarantine (`recordRejection`).
 */
export type LocalRefusalRecorder = (request: ReceivedRequest, error: RelayError) => Promise<void>;

/** Bytes kept of a request Node could not parse: as much as the quarantine keeps of a scanner's body. */
const RAW_PREFIX_BYTES = 2 * 1024;

/** The relay's named error for what Node's HTTP parser refused (`clientError`; headers too large aside). */
export function clientErrorAsRelayError(error: NodeJS.ErrnoException): RelayError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new RequestTimeoutError('The request line and headers did not arrive in time', { cause: error });
  // Node's reason names the fault (e.g. "Invalid header value char"), never the bytes sent.
  const reason = String((error as { reason?: unknown }).reason ?? error.message).slice(0, 200);
  return new MalformedRequestError(
    `The request is not valid HTTP/1.1 (${error.code ?? 'parse error'}: ${reason})`,
    {
      cause: error,
    },
  );
}

const REQUEST_LINE = /^([!-~]{1,16}) ([!-~]{1,2048}) HTTP\/\d\.\d$/;

/**
 * What is known of bytes Node could not parse, as the quarantine takes a request: the method and path
 * when the request line was readable, the first RAW_PREFIX_BYTES as the body, a credential header's value
 * (Authorization, Cookie…) cut out as the relay never stores one; the quarantine scrubs secrets after.
 */
export function unparsedRequest(raw: Buffer | undefined, sourceIp: string | undefined): ReceivedRequest {
  const text = (raw ?? Buffer.alloc(0)).subarray(0, RAW_PREFIX_BYTES).toString('latin1');
  const lines = text.split('\r\n');
  const line = REQUEST_LINE.exec(lines[0] ?? '');
  const kept = lines.map((header, i) => {
    const colon = header.indexOf(':');
    if (i === 0 || colon < 0 || !SECRET_HEADERS.has(header.slice(0, colon).trim().toLowerCase()))
      return header;
    return `${header.slice(0, colon)}: [not stored]`;
  });
  return {
    requestId: randomUUID(),
    method: line?.[1] ?? '-',
    path: line?.[2] ?? '(unparsed)',
    headers: {},
    rawBody: Buffer.from(kept.join('\r\n'), 'latin1'),
    sourceIp: sourceIp ?? '-',
    receivedAt: new Date(),
  };
}
