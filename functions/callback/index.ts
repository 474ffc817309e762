import { ingressBufferFromEnv } from '../../shared/runtime/ingress-buffer';
import { lambdaCoreServices } from '../../shared/runtime/lambda-core';
import { createCallbackHandler } from './handler';
import { INGRESS_BUFFER_OFF_METRIC } from '../../shared/config/metric-names';

// The core services only: the callback never reads statements or webhook deliveries (a smaller bundle).
const { services } = await lambdaCoreServices('relay-callback');
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
