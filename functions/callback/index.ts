import { lambdaRuntime } from '../../shared/runtime/lambda';
import { createCallbackHandler } from './handler';

const runtime = lambdaRuntime('relay-callback');
export const handler = createCallbackHandler(runtime);
