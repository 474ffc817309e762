import { lambdaDeliveryDeps } from '../../shared/runtime/delivery';
import { lambdaMiddlewares } from '../../shared/runtime/lambda-middleware';
import { createDeliveryHandler } from './handler';

export const handler = createDeliveryHandler(await lambdaDeliveryDeps()).use(lambdaMiddlewares());
