import { S3StatementObjects } from '../adapters/s3/statement-objects';
import type { StatementObjects } from '../app/statements/import-object';
import { requireEnv } from './env';

/** The statement bucket as the statements function reads it: S3 in the function's region. */
export function lambdaStatementObjects(): StatementObjects {
  return new S3StatementObjects({ region: requireEnv('AWS_REGION') });
}
