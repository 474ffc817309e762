import { lambdaReconcileServices } from '../../shared/runtime/lambda';
import { createManagementHandler } from './handler';

const { services } = await lambdaReconcileServices('relay-management');
export const handler = createManagementHandler(services);
