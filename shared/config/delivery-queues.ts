/**
 * The tag that names a destination queue's destination (AWS): the construct sets it on each queue, and the
 * management function reads it to find a destination's queue for its replays (shared/adapters/sqs/
 * sqs-delivery-queue.ts), so no list of queues rides in the function's environment (Lambda's 4 KB).
 */
export const DESTINATION_QUEUE_TAG = 'mobile-money-relay:destination';
