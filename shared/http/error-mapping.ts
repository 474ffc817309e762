import {
  ActorRequiredError,
  ApprovalNotFoundError,
  ApprovalStateError,
  ConfigError,
  DeliveryPathUnavailableError,
  DestinationNotFoundError,
  ForbiddenRoleError,
  ForbiddenSourceError,
  InvalidCallbackUrlError,
  InvalidReferenceError,
  KindMismatchError,
  MalformedJsonError,
  MalformedRequestError,
  MethodNotAllowedError,
  NamedSignInRequiredError,
  OriginNotVerifiedError,
  PayloadTooLargeError,
  QuarantineDecidedError,
  QuarantineEntryNotFoundError,
  QuarantineNotAcceptableError,
  ReceiptNotFoundError,
  RegistrationConflictError,
  type RelayError,
  RequestHeadersTooLargeError,
  RequestTimeoutError,
  RouteNotFoundError,
  SchemaValidationError,
  StatementFileError,
  SelfApprovalError,
  StorageUnavailableError,
  TooManyStreamsError,
  TransactionNotFoundError,
  TransactionStateError,
  UnauthorizedError,
  UnknownAccountError,
  UnknownKindError,
  UnsupportedMediaTypeError,
  UnstorableInputError,
} from '../domain/errors';
import { maskMsisdnsIn } from '../util/mask';
import { type HttpResponse, json } from './types';

/** The one table from error class to HTTP status. Everything that answers HTTP goes through here. */
const STATUS_BY_ERROR: ReadonlyArray<[abstract new (...args: never[]) => RelayError, number]> = [
  [MalformedJsonError, 400],
  [MalformedRequestError, 400],
  [SchemaValidationError, 400],
  [StatementFileError, 400],
  [InvalidReferenceError, 400],
  [InvalidCallbackUrlError, 400],
  [UnstorableInputError, 400],
  [ActorRequiredError, 400],
  [UnauthorizedError, 401],
  [ForbiddenSourceError, 403],
  [ForbiddenRoleError, 403],
  [SelfApprovalError, 403],
  [NamedSignInRequiredError, 403],
  [OriginNotVerifiedError, 403],
  [RouteNotFoundError, 404],
  [UnknownAccountError, 404],
  [UnknownKindError, 404],
  [TransactionNotFoundError, 404],
  [ReceiptNotFoundError, 404],
  [DestinationNotFoundError, 404],
  [ApprovalNotFoundError, 404],
  [QuarantineEntryNotFoundError, 404],
  [MethodNotAllowedError, 405],
  [RequestTimeoutError, 408],
  [RegistrationConflictError, 409],
  [KindMismatchError, 409],
  [TransactionStateError, 409],
  [ApprovalStateError, 409],
  [QuarantineDecidedError, 409],
  [QuarantineNotAcceptableError, 409],
  [PayloadTooLargeError, 413],
  [UnsupportedMediaTypeError, 415],
  [RequestHeadersTooLargeError, 431],
  [TooManyStreamsError, 429],
  [StorageUnavailableError, 503],
  [DeliveryPathUnavailableError, 503],
  [ConfigError, 500],
];

/** What a caller is told about an outage; the cause is in the logs. */
const STORAGE_UNAVAILABLE_MESSAGE =
  'The relay could not store the request right now and did not accept it; send it again later';

export function statusFor(error: RelayError): number {
  for (const [type, status] of STATUS_BY_ERROR) if (error instanceof type) return status;
  return 500;
}

function errorBody(
  error: RelayError,
  scrub: (text: string) => string = (text) => text,
): {
  error: { code: string; message: string } & Record<string, unknown>;
} {
  // An outage's message names AWS internals (account, role and queue ARNs, SDK error text): logged where
  // it happens, never answered.
  // A message may echo what was sent (an account, a kind or a reference that is a phone number): masked
  // as in every answer.
  const message =
    error instanceof StorageUnavailableError ? STORAGE_UNAVAILABLE_MESSAGE : maskMsisdnsIn(error.message);
  const body = { error: { code: error.code, message, ...(error.details ?? {}) } };
  // Messages may echo what was sent (a path holding a path secret): scrubbed like logs and quarantine.
  return JSON.parse(scrub(JSON.stringify(body)));
}

/** The answer for a named error; `scrub` removes configured secret values from its message and details. */
export function errorResponse(error: RelayError, scrub?: (text: string) => string): HttpResponse {
  const statusCode = statusFor(error);
  const headers: Record<string, string> = {};
  if (error instanceof MethodNotAllowedError) headers.allow = error.allowed.join(', ');
  if (error instanceof UnauthorizedError && error.challenge) headers['www-authenticate'] = error.challenge;
  return json(statusCode, errorBody(error, scrub), headers);
}

export function internalErrorResponse(requestId: string): HttpResponse {
  return json(500, {
    error: { code: 'INTERNAL_ERROR', message: 'Unexpected error; it has been logged', requestId },
  });
}
