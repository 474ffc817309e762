import { lambdaManagementServices } from '../../shared/runtime/lambda-management';
import { createManagementHandler } from './handler';

const { services } = await lambdaManagementServices('relay-management');
export const handler = createManagementHandler(services);
