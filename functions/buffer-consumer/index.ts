import { bufferRetryLaterFromEnv } from '../../shared/runtime/buffer-retry-later';
import { bufferQueueFromEnv } from '../../shared/runtime/buffer-queue';
import { bufferSealKeyFromEnv } from '../../shared/runtime/ingress-buffer';
import { lambdaMiddlewares } from '../../shared/runtime/lambda-middleware';
import { lambdaCoreServices } from '../../shared/runtime/lambda-core';
import { createBufferDrain } from './handler';

// The callback's services, as it applies what the callback function buffered (no statements, no deliveries).
const { services } = await lambdaCoreServices('relay-buffer-consumer');
const retryLater = bufferRetryLaterFromEnv();
// EventBridge Scheduler invokes it every minute (no event source mapping polling the queue all month);
// the seal key is read only once a message is there.
export const handler = createBufferDrain(services, {
  queue: bufferQueueFromEnv(),
  sealKey: () => bufferSealKeyFromEnv(services.log),
  lanes: Number(process.env.INGRESS_BUFFER_DRAIN_LANES ?? '5'),
  ...(retryLater ? { retryLater } : {}),
}).use(lambdaMiddlewares());
