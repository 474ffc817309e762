import { lambdaOutboxPublisherDeps } from '../../shared/runtime/outbox-publisher';
import { createOutboxPublisher } from './handler';

export const handler = createOutboxPublisher(lambdaOutboxPublisherDeps());
