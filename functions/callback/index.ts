import { ingressBufferFromEnv } from '../../shared/runtime/ingress-buffer';
import { lambdaServices } from '../../shared/runtime/lambda';
import { createCallbackHandler } from './handler';

const { services } = await lambdaServices('relay-callback');
export const handler = createCallbackHandler({
  ...services,
  ingressBuffer: await ingressBufferFromEnv(services.log),
});
