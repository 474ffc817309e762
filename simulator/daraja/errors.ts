import { SimHttpError } from '../core/http';
import { digits } from '../core/ids';

/** Daraja failure response `{requestId, errorCode, errorMessage}` (seed 001 Part B, platform errors). */
export function darajaError(status: number, errorCode: string, errorMessage: string): SimHttpError {
  return new SimHttpError(status, { requestId: `${digits(5)}-${digits(8)}-1`, errorCode, errorMessage });
}

export const darajaErrors = {
  invalidField: (field: string) => darajaError(400, '400.002.02', `Bad Request - Invalid ${field}`),
  invalidPayload: () => darajaError(400, '400.002.05', 'Invalid request payload'),
  invalidToken: () => darajaError(401, '400.003.01', 'Invalid Access Token'),
  notFound: () => darajaError(404, '404.003.01', 'Resource not found'),
  /** Seed: all operations are POST except token generation, which is GET. */
  wrongMethod: () => darajaError(404, '404.001.04', 'Invalid Authentication Header'),
  badCredentials: () => darajaError(400, '400.008.01', 'Invalid Authentication passed'),
  badGrantType: () => darajaError(400, '400.008.02', 'Invalid grant type passed'),
  /** Same code as "being processed" on the STK query: clients must tell them apart by message. */
  wrongCredentials: () => darajaError(500, '500.001.1001', 'Wrong credentials'),
  merchantUnknown: () => darajaError(500, '500.001.1001', 'Merchant does not exist'),
  beingProcessed: () => darajaError(500, '500.001.1001', 'The transaction is being processed'),
  internal: (status: number) =>
    darajaError(status, '500.003.1001', status === 503 ? 'Service Unavailable' : 'Internal Server Error'),
};
