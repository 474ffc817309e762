import { SimHttpError } from '../core/http';

/** MoMo error bodies are ErrorReason `{code, message}` (MoMo Open API docs, error codes). */
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
  /** Gateway (APIM) answer to a wrong `Ocp-Apim-Subscription-Key`: the documented code plus the APIM sentence. */
  subscriptionKey: () =>
    new SimHttpError(401, {
      statusCode: 401,
      code: 'ACCESS DENIED DUE TO INVALID SUBSCRIPTION KEY',
      message:
        'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.',
    }),
  /** MoMo Open API docs, Authentication and error codes: a caller outside the product's IP allow-list. */
  forbiddenIp: (ip: string) =>
    momoError(403, 'FORBIDDEN IP', `Caller IP ${ip} is not authorized for this API.`),
  /** Token failures carry `{error}` (MoMo Open API docs, token errors). */
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
 * Delivery notification answers (the MoMo Open API documentation gives their HTTP statuses and meanings but no codes; the codes
 * below are the simulator's choice, in the documented upper-case style).
 */
export const momoDeliveryNotificationErrors = {
  notCompleted: () =>
    momoError(409, 'TRANSACTION_NOT_COMPLETED', 'The transaction has not been completed successfully.'),
  expired: () => momoError(410, 'NOTIFICATION_EXPIRED', 'The delivery notification opportunity has expired.'),
  tooMany: () =>
    momoError(429, 'TOO_MANY_ATTEMPTS', 'Too many delivery notification attempts for this transaction.'),
};

/**
 * The MoMo Open API documentation spells some codes differently from MTN's live API. With `momo.errorSpelling: "seed"` the
 * simulator answers with the documented spellings so a client can be tested against both. Codes spelled the
 * same either way (`ACCESS DENIED DUE TO INVALID SUBSCRIPTION KEY`, `FORBIDDEN IP`) are not listed.
 */
const MOMO_SEED_SPELLINGS: Readonly<Record<string, string>> = {
  RESOURCE_NOT_FOUND: 'RESOURCE NOT FOUND',
  BAD_REQUEST: 'REQUEST REJECTED/ BAD REQUEST',
  NOT_ENOUGH_FUNDS: 'NOT ENOUGH_FUNDS',
  PAYEE_LIMIT_REACHED: 'PAYEE LIMIT_REACHED',
};

export type MomoErrorSpelling = 'mtn' | 'seed';

export function spellCode(code: string, spelling: MomoErrorSpelling): string {
  return spelling === 'seed' ? (MOMO_SEED_SPELLINGS[code] ?? code) : code;
}

/** The same error with its `code` in the chosen spelling (bodies without a `code` pass unchanged). */
export function respellError(e: SimHttpError, spelling: MomoErrorSpelling): SimHttpError {
  const body = e.body as { code?: unknown } | undefined;
  if (spelling === 'mtn' || typeof body?.code !== 'string') return e;
  const code = spellCode(body.code, spelling);
  return code === body.code ? e : new SimHttpError(e.status, { ...body, code }, e.headers);
}

/**
 * OAuth2 consent flow errors (`/oauth2/token`): RFC 6749 / OpenID CIBA `{error, error_description}`,
 * the token endpoint's error shape (MoMo Open API docs: "Token error body: `error`").
 */
export function oauthError(status: number, error: string, description: string): SimHttpError {
  return new SimHttpError(status, { error, error_description: description });
}
