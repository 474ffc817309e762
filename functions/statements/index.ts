import { lambdaMiddlewares } from '../../shared/runtime/lambda-middleware';
import { lambdaServices } from '../../shared/runtime/lambda';
import { lambdaStatementObjects } from '../../shared/runtime/statement-objects';
import { createStatementsHandler } from './handler';

const { services } = await lambdaServices('relay-statements');
export const handler = createStatementsHandler({
  ...services,
  objects: lambdaStatementObjects(),
}).use(lambdaMiddlewares());
