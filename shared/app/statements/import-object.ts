import {
  RelayError,
  SchemaValidationError,
  StatementFileError,
  UnknownAccountError,
} from '../../domain/errors';
import type { StatementActor } from '../../domain/statement';
import { hasControlCharacters } from '../../util/text';
import { type StatementImportAnswer, importStatement } from './import-statement';
import type { StatementDeps } from './statement-sink';
import { IMPORTS_DONE_METRIC, IMPORTS_REFUSED_METRIC } from '../../config/metric-names';
import { REPORT_KEY_PREFIX, STATEMENT_KEY_PREFIX } from '../../config/statement-files';

export { IMPORTS_DONE_METRIC, IMPORTS_REFUSED_METRIC };

const TEMPLATE_SEGMENT = /^template=([A-Za-z0-9_.-]{1,64})$/;

/** The port to the statement bucket (in AWS: S3, shared/adapters/s3/statement-objects.ts). */
export interface StatementObjects {
  /** The object's text from its start, UTF-8, in chunks as they arrive (never the whole file at once). */
  read(bucket: string, key: string): AsyncIterable<string>;
  /** Writes a small JSON object (an upload's report). */
  putJson(bucket: string, key: string, body: unknown): Promise<void>;
}

/** One object created in the statement bucket, as the bucket's notification tells it. */
export interface CreatedObject {
  bucket: string;
  /** The key, decoded (S3 notifications URL-encode it, spaces as `+`). */
  key: string;
  /** Who uploaded it: the notification's `userIdentity.principalId` (S3 authenticated them; the bucket policy let them). */
  principal: string;
}

interface StatementKey {
  provider: string;
  account: string;
  template?: string;
  file: string;
}

/** Reads the key layout; a key outside it is a StatementFileError (refused, never guessed). */
function parseStatementKey(key: string): StatementKey {
  const parts = key.startsWith(STATEMENT_KEY_PREFIX) ? key.slice(STATEMENT_KEY_PREFIX.length).split('/') : [];
  const template = parts.length === 4 ? TEMPLATE_SEGMENT.exec(parts[2]!)?.[1] : undefined;
  const ok =
    (parts.length === 3 || (parts.length === 4 && template !== undefined)) &&
    parts.every((p) => p.length > 0 && p.length <= 200 && !hasControlCharacters(p));
  if (!ok)
    throw new StatementFileError(
      'The key must be statements/<provider>/<account>/<file> or statements/<provider>/<account>/template=<name>/<file>',
      { details: { key: key.slice(0, 300) } },
    );
  return {
    provider: parts[0]!,
    account: parts[1]!,
    ...(template ? { template } : {}),
    file: parts[parts.length - 1]!,
  };
}

/** The report's key of a statement key (the same path under `reports/`, `.json` added). */
function reportKeyOf(key: string): string {
  const rest = key.startsWith(STATEMENT_KEY_PREFIX) ? key.slice(STATEMENT_KEY_PREFIX.length) : key;
  return `${REPORT_KEY_PREFIX}${rest}.json`;
}

/**
 * The uploader as the evidence names them: authenticated by S3 (a signed PutObject the bucket policy
 * allowed), and so an operator, like a person importing through the API (docs/roles-and-audit.md).
 */
function uploaderOf(principal: string): StatementActor {
  const name = principal.slice(0, 200) || 'unknown-s3-principal';
  return {
    kind: 'person',
    name,
    ref: { id: name, name, email: null, role: 'operator', via: 'iam' },
  };
}

/** An `importing` report still there after the statements function's time-out: the import was stopped. */
const IMPORTING_NEXT =
  "replaced by the result when the import ends; still here after the statements function's time-out, the import was stopped (time-out or memory): Lambda tries twice more, then the StatementFailures queue lists it. Rows stored so far stay stored: upload the same file again to go on (they are skipped), or split the file";

/** Refusals a person fixes by uploading again (the file, its key, the account): not retried. */
const REFUSALS = [StatementFileError, UnknownAccountError, SchemaValidationError];

export type ObjectImportAnswer =
  | { status: 'imported'; key: string; report: string; answer: StatementImportAnswer }
  | {
      status: 'refused';
      key: string;
      report: string;
      error: { code: string; message: string; line?: unknown; column?: unknown };
    };

/**
 * An import that failed on an outage (not the file's fault): its report says so before the error goes on,
 * so the upload is never silent; Lambda tries again, then puts the event in the failures queue
 * (infra/relay/statement-files.ts). A report that cannot be written either (S3 out) is only logged.
 */
async function reportFailure(
  deps: StatementDeps & { objects: StatementObjects },
  object: CreatedObject,
  report: string,
  who: { by: string; at: string },
  error: Error,
): Promise<void> {
  deps.log.error('statement import failed', { key: object.key, by: who.by, error: error.message });
  try {
    await deps.objects.putJson(object.bucket, report, {
      status: 'failed',
      key: object.key,
      ...who,
      error: { name: error.name, message: error.message.slice(0, 500) },
      next: 'tried again by Lambda (twice); then listed in the StatementFailures queue: upload the same file again once the cause is fixed (rows already stored are skipped)',
    });
  } catch (cause) {
    deps.log.error('statement import failure not reported', {
      key: object.key,
      error: (cause as Error).message,
    });
  }
}

/**
 * Imports an uploaded statement object through the same use case as the API (importStatement: the whole
 * file checked first, nothing half-imported, a re-upload changes nothing), streamed from the bucket. A
 * refusal (a malformed file, an unknown account or template, a key outside the layout) is answered, logged
 * with its row and column, and written beside the upload as its report; it is not thrown, so the upload is
 * not retried. Anything else (the table failing) is thrown: the invocation is retried, and importing again
 * is safe.
 */
export async function importObject(
  deps: StatementDeps & { objects: StatementObjects },
  object: CreatedObject,
): Promise<ObjectImportAnswer> {
  const report = reportKeyOf(object.key);
  const actor = uploaderOf(object.principal);
  const at = deps.clock.now().toISOString();
  try {
    const key = parseStatementKey(object.key);
    // Said before the work starts: an import the function's time-out or memory stops writes nothing after,
    // and the uploader would otherwise see no report at all until the failures queue is read.
    await deps.objects.putJson(object.bucket, report, {
      status: 'importing',
      key: object.key,
      by: actor.name,
      at,
      next: IMPORTING_NEXT,
    });
    const answer = await importStatement(deps, {
      provider: key.provider,
      account: key.account,
      ref: key.file,
      ...(key.template ? { template: key.template } : {}),
      actor,
      open: () => deps.objects.read(object.bucket, object.key),
    });
    await deps.objects.putJson(object.bucket, report, {
      status: 'imported',
      key: object.key,
      by: actor.name,
      at,
      ...answer,
    });
    return { status: 'imported', key: object.key, report, answer };
  } catch (error) {
    if (!REFUSALS.some((kind) => error instanceof kind)) {
      await reportFailure(deps, object, report, { by: actor.name, at }, error as Error);
      throw error;
    }
    const refused = error as RelayError;
    const details = refused.details ?? {};
    const summary = {
      code: refused.code,
      message: refused.message,
      ...('line' in details ? { line: details.line } : {}),
      ...('column' in details ? { column: details.column } : {}),
    };
    deps.log.warn('statement import refused', { key: object.key, by: actor.name, ...summary });
    await deps.objects.putJson(object.bucket, report, {
      status: 'refused',
      key: object.key,
      by: actor.name,
      at,
      error: summary,
    });
    return { status: 'refused', key: object.key, report, error: summary };
  }
}
