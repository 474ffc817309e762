import { systemClock } from '../../shared/domain/ports';
import { lambdaRuntime } from '../../shared/runtime/lambda';
import { createManagementHandler } from './handler';

const { config, store, logger } = lambdaRuntime('relay-management');
export const handler = createManagementHandler({ config, store, clock: systemClock, log: logger });
