import { bufferRetryLaterFromEnv } from '../../shared/runtime/buffer-retry-later';
import { bufferQueueFromEnv } from '../../shared/runtime/buffer-queue';
import { bufferSealKeyFromEnv } from '../../shared/runtime/ingress-buffer';
import { lambdaMiddlewares } from '../../shared/runtime/lambda-middleware';
import { lambdaCallbackServices } from '../../shared/runtime/lambda-callback';
import { createBufferDrain } from './handler';

// The callback's services, as it applies what the callback function buffered (the callback path's store;
// no statements, no deliveries).
const { services } = await lambdaCallbackServices('relay-buffer-consumer');
const retryLater = bufferRetryLaterFromEnv();
// EventBridge Scheduler invokes it every minute (no event source mapping polling the queue all month);
// the seal key is read only once a message is there.
export const handler = createBufferDrain(services, {
  queue: bufferQueueFromEnv(),
  sealKey: () => bufferSealKeyFromEnv(services.log),
  lanes: Number(process.env.INGRESS_BUFFER_DRAIN_LANES ?? '5'),
  ...(retryLater ? { retryLater } : {}),
}).use(lambdaMiddlewares());
