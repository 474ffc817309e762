import { SimHttpError } from '../core/http';
import { digits } from '../core/ids';

/** Daraja failure response `{requestId, errorCode, errorMessage}` (Daraja API docs, platform errors). */
export function darajaError(
  status: number,
  errorCode: string,
  errorMessage: string,
  headers?: Record<string, string>,
): SimHttpError {
  return new SimHttpError(
    status,
    { requestId: `${digits(5)}-${digits(8)}-1`, errorCode, errorMessage },
    headers,
  );
}

export const darajaErrors = {
  invalidField: (field: string) => darajaError(400, '400.002.02', `Bad Request - Invalid ${field}`),
  invalidPayload: () => darajaError(400, '400.002.05', 'Invalid request payload'),
  invalidToken: () => darajaError(401, '400.003.01', 'Invalid Access Token'),
  notFound: () => darajaError(404, '404.003.01', 'Resource not found'),
  /** Daraja's docs: all operations are POST except token generation, which is GET. */
  wrongMethod: () => darajaError(404, '404.001.04', 'Invalid Authentication Header'),
  badCredentials: () => darajaError(400, '400.008.01', 'Invalid Authentication passed'),
  badGrantType: () => darajaError(400, '400.008.02', 'Invalid grant type passed'),
  /** Same code as "being processed" on the STK query: clients must tell them apart by message. */
  wrongCredentials: () => darajaError(500, '500.001.1001', 'Wrong credentials'),
  merchantUnknown: () => darajaError(500, '500.001.1001', 'Merchant does not exist'),
  beingProcessed: () => darajaError(500, '500.001.1001', 'The transaction is being processed'),
  internal: (status: number) =>
    darajaError(status, '500.003.1001', status === 503 ? 'Service Unavailable' : 'Internal Server Error'),
  /**
   * Daraja API docs: "quota violation: too many requests per second" and "spike arrest violation". Daraja's docs give
   * no HTTP status: 429 is what integrators report and what current gateways answer, while older gateways
   * answered 500, as the codes' prefix suggests; `daraja.throttleHttpStatus` picks the reading.
   */
  quotaViolation: (status: number, retryAfterSeconds: number) =>
    darajaError(status, '500.003.03', 'Quota Violation', { 'retry-after': String(retryAfterSeconds) }),
  spikeArrest: (status: number, retryAfterSeconds: number) =>
    darajaError(status, '500.003.02', 'Spike Arrest Violation', {
      'retry-after': String(retryAfterSeconds),
    }),
};
