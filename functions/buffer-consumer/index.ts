import { bufferRetryLaterFromEnv } from '../../shared/runtime/buffer-retry-later';
import { bufferSealKeyFromEnv } from '../../shared/runtime/ingress-buffer';
import { lambdaMiddlewares } from '../../shared/runtime/lambda-middleware';
import { lambdaCoreServices } from '../../shared/runtime/lambda-core';
import { createBufferConsumer } from './handler';

// The callback's services, as it applies what the callback function buffered (no statements, no deliveries).
const { services } = await lambdaCoreServices('relay-buffer-consumer');
const sealKey = await bufferSealKeyFromEnv(services.log);
const retryLater = bufferRetryLaterFromEnv();
export const handler = createBufferConsumer(services, {
  ...(sealKey ? { sealKey } : {}),
  ...(retryLater ? { retryLater } : {}),
}).use(lambdaMiddlewares());
