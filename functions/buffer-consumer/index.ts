import { lambdaMiddlewares } from '../../shared/runtime/lambda-middleware';
import { lambdaServices } from '../../shared/runtime/lambda';
import { createBufferConsumer } from './handler';

const { services } = await lambdaServices('relay-buffer-consumer');
export const handler = createBufferConsumer(services).use(lambdaMiddlewares());
