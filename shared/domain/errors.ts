/**
 * Named errors of the relay. Each carries a stable `code` for clients and a `cause`. They are mapped
 * to HTTP in exactly one place: shared/http/error-mapping.ts.
 */
export abstract class RelayError extends Error {
  abstract readonly code: string;
  /** Extra fields a client may act on (validation issues, allowed methods…). Never secrets. */
  readonly details: Record<string, unknown> | undefined;

  constructor(message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.details = options.details;
  }
}

export class RouteNotFoundError extends RelayError {
  readonly code = 'ROUTE_NOT_FOUND';
}
export class UnknownAccountError extends RelayError {
  readonly code = 'UNKNOWN_ACCOUNT';
}
export class UnknownKindError extends RelayError {
  readonly code = 'UNKNOWN_KIND';
}
export class MethodNotAllowedError extends RelayError {
  readonly code = 'METHOD_NOT_ALLOWED';
  constructor(
    readonly allowed: readonly string[],
    method: string,
  ) {
    super(`Method ${method} is not allowed here; use ${allowed.join(' or ')}`, { details: { allowed } });
  }
}
export class PayloadTooLargeError extends RelayError {
  readonly code = 'PAYLOAD_TOO_LARGE';
}
/** The request line and headers over what API Gateway takes (the local server refuses them the same way). */
export class RequestHeadersTooLargeError extends RelayError {
  readonly code = 'REQUEST_HEADERS_TOO_LARGE';
}
/** Bytes that are not an HTTP request (a bad request line, a header with invalid characters): the local server. */
export class MalformedRequestError extends RelayError {
  readonly code = 'MALFORMED_REQUEST';
}
/** A request whose headers did not all arrive in time (the local server's header timeout). */
export class RequestTimeoutError extends RelayError {
  readonly code = 'REQUEST_TIMEOUT';
}
export class UnsupportedMediaTypeError extends RelayError {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
}
export class MalformedJsonError extends RelayError {
  readonly code = 'MALFORMED_JSON';
}
export class SchemaValidationError extends RelayError {
  readonly code = 'SCHEMA_VALIDATION_FAILED';
}
/** A callback's path names another kind of operation than the transaction it is about was registered as. */
export class KindMismatchError extends RelayError {
  readonly code = 'KIND_MISMATCH';
}
export class InvalidReferenceError extends RelayError {
  readonly code = 'INVALID_REFERENCE';
}
export class UnauthorizedError extends RelayError {
  readonly code = 'UNAUTHORIZED';
  /** WWW-Authenticate challenge, only where the client can answer one (the bearer-token API). */
  readonly challenge: string | undefined;

  constructor(
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown>; challenge?: string } = {},
  ) {
    super(message, options);
    this.challenge = options.challenge;
  }
}
/**
 * A person's action taken with the shared bearer token without naming the person (or with a name that is
 * not one): the message says how to name them (docs/roles-and-audit.md#the-shared-token).
 */
export class ActorRequiredError extends RelayError {
  readonly code = 'ACTOR_REQUIRED';
}
/** The caller is signed in but their role does not allow the action; the message names the role needed. */
export class ForbiddenRoleError extends RelayError {
  readonly code = 'FORBIDDEN_ROLE';
}
/** A second pair of eyes must be a second person: nobody approves (or rejects) their own request. */
export class SelfApprovalError extends RelayError {
  readonly code = 'SELF_APPROVAL';
}
/**
 * A four-eyes step (asking for a resolution above the limit, approving, rejecting) by, or of a request
 * made with, the shared bearer token: its typed name proves nobody, so one person could be both pairs of eyes.
 */
export class NamedSignInRequiredError extends RelayError {
  readonly code = 'NAMED_SIGN_IN_REQUIRED';
}
/** No approval request with that id (never made, or past its retention). */
export class ApprovalNotFoundError extends RelayError {
  readonly code = 'APPROVAL_NOT_FOUND';
}
/** The approval request was decided already, or expired. */
export class ApprovalStateError extends RelayError {
  readonly code = 'APPROVAL_STATE';
}
/** No quarantine entry with that id on that day. */
export class QuarantineEntryNotFoundError extends RelayError {
  readonly code = 'QUARANTINE_ENTRY_NOT_FOUND';
}
/** The quarantine entry was decided already (accepted or dismissed) another way than asked. */
export class QuarantineDecidedError extends RelayError {
  readonly code = 'QUARANTINE_DECIDED';
}
/** The refused request cannot be accepted: not a provider callback with a whole body naming an outcome. */
export class QuarantineNotAcceptableError extends RelayError {
  readonly code = 'QUARANTINE_NOT_ACCEPTABLE';
}
export class ForbiddenSourceError extends RelayError {
  readonly code = 'FORBIDDEN_SOURCE';
}
/** A provider route reached around the relay's CloudFront edge (`edge.mode: "cloudfront"`): origin header missing or wrong. */
export class OriginNotVerifiedError extends RelayError {
  readonly code = 'ORIGIN_NOT_VERIFIED';
}
export class TransactionNotFoundError extends RelayError {
  readonly code = 'TRANSACTION_NOT_FOUND';
}
/** No webhook destination of that name in the relay config (docs/webhooks.md). */
export class DestinationNotFoundError extends RelayError {
  readonly code = 'DESTINATION_NOT_FOUND';
}
/** This runtime cannot send webhook replays (no delivery path wired); a dry run still counts. */
export class DeliveryPathUnavailableError extends RelayError {
  readonly code = 'DELIVERY_PATH_UNAVAILABLE';
}
/** The transaction exists but holds no receipt with that id (the console's receipt body). */
export class ReceiptNotFoundError extends RelayError {
  readonly code = 'RECEIPT_NOT_FOUND';
}
export class RegistrationConflictError extends RelayError {
  readonly code = 'REGISTRATION_CONFLICT';
}
/** An operator action the transaction's status does not allow (e.g. resolving a SUCCEEDED transaction). */
export class TransactionStateError extends RelayError {
  readonly code = 'TRANSACTION_STATE';
}
export class InvalidCallbackUrlError extends RelayError {
  readonly code = 'INVALID_CALLBACK_URL';
}
/** The store refused this input itself (too large, too deep, an unstorable value): bad input, not an outage. */
export class UnstorableInputError extends RelayError {
  readonly code = 'UNSTORABLE_INPUT';
}
/** As many console event streams are open as the relay serves at once: refused, the console polls instead. */
export class TooManyStreamsError extends RelayError {
  readonly code = 'TOO_MANY_STREAMS';
}
/**
 * A statement file that cannot be read as its layout says: `details` name the line and the column, and
 * nothing of the file was imported (docs/statements.md#files).
 */
export class StatementFileError extends RelayError {
  readonly code = 'STATEMENT_FILE_INVALID';
}
/** Storage could not be written; the caller must not acknowledge success to a provider. */
export class StorageUnavailableError extends RelayError {
  readonly code = 'STORAGE_UNAVAILABLE';
}
/** Raised at cold start / `npm start`; the message names the offending config key. */
export class ConfigError extends RelayError {
  readonly code = 'INVALID_CONFIG';
}
