import { SimHttpError } from '../core/http';

/** MoMo error bodies are ErrorReason `{code, message}` (seed 000, Errors). */
export function momoError(status: number, code: string, message: string): SimHttpError {
  return new SimHttpError(status, { code, message });
}

export const momoErrors = {
  badRequest: (message: string) => momoError(400, 'BAD_REQUEST', message),
  notFound: () => momoError(404, 'RESOURCE_NOT_FOUND', 'Requested resource was not found.'),
  conflict: () =>
    momoError(409, 'RESOURCE_ALREADY_EXIST', 'Duplicated reference id. Creation of resource failed.'),
  targetEnvironment: () =>
    momoError(500, 'NOT_ALLOWED_TARGET_ENVIRONMENT', 'Access to target environment is forbidden.'),
  callbackHost: () =>
    momoError(
      500,
      'INVALID_CALLBACK_URL_HOST',
      'Callback URL with different host than configured for the API user.',
    ),
  currency: () => momoError(500, 'INVALID_CURRENCY', 'Currency not supported.'),
  notAllowed: () => momoError(500, 'NOT_ALLOWED', 'Authorization failed. User does not have permission.'),
  internal: () =>
    momoError(500, 'INTERNAL_PROCESSING_ERROR', 'An internal error caused the operation to fail.'),
  unavailable: () => momoError(503, 'SERVICE_UNAVAILABLE', 'The service is temporarily unavailable.'),
  /** Gateway (APIM) answer to a wrong `Ocp-Apim-Subscription-Key`: the seed's code plus the APIM sentence. */
  subscriptionKey: () =>
    new SimHttpError(401, {
      statusCode: 401,
      code: 'ACCESS DENIED DUE TO INVALID SUBSCRIPTION KEY',
      message:
        'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.',
    }),
  /** Token failures carry `{error}` (seed 000, Tokens and Errors). */
  loginFailed: () => new SimHttpError(401, { error: 'login_failed' }),
  invalidToken: (reason: 'unknown' | 'expired') =>
    new SimHttpError(401, {
      error: reason === 'expired' ? 'token_expired' : 'invalid_token',
      message: reason === 'expired' ? 'Access token has expired.' : 'Access token is invalid.',
    }),
};

/** The 5xx body a `status-5xx` fault answers with. */
export function momo5xxBody(status: number): { code: string; message: string } {
  return status === 503
    ? { code: 'SERVICE_UNAVAILABLE', message: 'The service is temporarily unavailable.' }
    : { code: 'INTERNAL_PROCESSING_ERROR', message: 'An internal error caused the operation to fail.' };
}

/**
 * Delivery notification answers (seed 000 gives their HTTP statuses and meanings but no codes; the codes
 * below are the simulator's choice, in the seed's upper-case style).
 */
export const momoDeliveryNotificationErrors = {
  notCompleted: () =>
    momoError(409, 'TRANSACTION_NOT_COMPLETED', 'The transaction has not been completed successfully.'),
  expired: () => momoError(410, 'NOTIFICATION_EXPIRED', 'The delivery notification opportunity has expired.'),
  tooMany: () =>
    momoError(429, 'TOO_MANY_ATTEMPTS', 'Too many delivery notification attempts for this transaction.'),
};
