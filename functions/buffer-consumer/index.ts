import { createSqsBufferClient } from '../../shared/adapters/sqs/sqs-ingress-buffer';
import { sqsRetryLater } from '../../shared/adapters/sqs/sqs-retry-later';
import { bufferSealKeyFromEnv } from '../../shared/runtime/ingress-buffer';
import { lambdaMiddlewares } from '../../shared/runtime/lambda-middleware';
import { lambdaServices } from '../../shared/runtime/lambda';
import { createBufferConsumer } from './handler';

const { services } = await lambdaServices('relay-buffer-consumer');
const sealKey = await bufferSealKeyFromEnv(services.log);
// The construct gives the consumer the queue URL: records failing on the store back off (retry-backoff.ts).
const queueUrl = process.env.INGRESS_BUFFER_QUEUE_URL;
export const handler = createBufferConsumer(services, {
  ...(sealKey ? { sealKey } : {}),
  ...(queueUrl ? { retryLater: sqsRetryLater(createSqsBufferClient(), queueUrl) } : {}),
}).use(lambdaMiddlewares());
