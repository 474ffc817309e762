import { S3StatementObjects } from '../../shared/adapters/s3/statement-objects';
import { lambdaMiddlewares } from '../../shared/runtime/lambda-middleware';
import { lambdaServices } from '../../shared/runtime/lambda';
import { requireEnv } from '../../shared/runtime/env';
import { createStatementsHandler } from './handler';

const { services } = await lambdaServices('relay-statements');
export const handler = createStatementsHandler({
  ...services,
  objects: new S3StatementObjects({ region: requireEnv('AWS_REGION') }),
}).use(lambdaMiddlewares());
