import { ingressBufferFromEnv } from '../../shared/runtime/ingress-buffer';
import { lambdaCallbackServices } from '../../shared/runtime/lambda-callback';
import { createCallbackHandler } from './handler';
import { INGRESS_BUFFER_OFF_METRIC } from '../../shared/config/metric-names';

// The core services on the callback path's store only: the callback never reads the console's, the
// poller's or the operators' items, statements or webhook deliveries (a smaller bundle).
const { services } = await lambdaCallbackServices('relay-callback');
const ingressBuffer = await ingressBufferFromEnv(services.log);
const handle = createCallbackHandler({ ...services, ingressBuffer });

/**
 * Without its buffer (no queue URL, or the seal key unreadable at cold start) a store failure is a 503
 * the provider may never retry: every invocation says so in IngressBufferOff, which pages.
 */
export const handler: typeof handle = ingressBuffer
  ? handle
  : (((event: Parameters<typeof handle>[0], context: Parameters<typeof handle>[1]) => {
      services.metrics.count(INGRESS_BUFFER_OFF_METRIC, 1);
      return handle(event, context);
    }) as typeof handle);
