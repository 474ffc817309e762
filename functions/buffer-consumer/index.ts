import { bufferRetryLaterFromEnv, bufferSealKeyFromEnv } from '../../shared/runtime/ingress-buffer';
import { lambdaMiddlewares } from '../../shared/runtime/lambda-middleware';
import { lambdaServices } from '../../shared/runtime/lambda';
import { createBufferConsumer } from './handler';

const { services } = await lambdaServices('relay-buffer-consumer');
const sealKey = await bufferSealKeyFromEnv(services.log);
const retryLater = bufferRetryLaterFromEnv();
export const handler = createBufferConsumer(services, {
  ...(sealKey ? { sealKey } : {}),
  ...(retryLater ? { retryLater } : {}),
}).use(lambdaMiddlewares());
