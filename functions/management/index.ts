import { lambdaServices } from '../../shared/runtime/lambda';
import { createManagementHandler } from './handler';

const { services } = await lambdaServices('relay-management');
export const handler = createManagementHandler(services);
