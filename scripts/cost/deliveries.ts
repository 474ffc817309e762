/**
 * `npm run cost`: a million webhook deliveries on the AWS path (docs/webhooks.md#in-aws), each answered
 * 2xx at the first attempt (a retry repeats the SQS, Lambda and attempt-log lines), and a million to an
 * `sqs` destination (docs/webhooks.md#sqs-destinations), each accepted at the first send. Kept apart from
 * scripts/cost.ts: it only needs the unit prices.
 */
import type { CostLine } from '../cost';

export interface DeliveryPrices {
  sqsPerMillionRequests: number;
  lambdaPerMillionRequests: number;
  lambdaArmPerGbSecond: number;
  dynamoPerMillionWrites: number;
  eventBridgePerMillionEvents: number;
}

/** Per delivery, at low volume (one record a batch, the worst case; full batches of 10 divide 2 of the 3 by ten). */
export const DELIVERY_UNITS = {
  /** The rule's SendMessage, the event source's ReceiveMessage and DeleteMessage. */
  sqsRequests: 3,
  /** One invocation per batch. */
  lambdaInvocations: 1,
  /** Assumed, not measured: one HTTPS round trip to the partner and the log writes, at 512 MB. */
  lambdaSeconds: 0.3,
  lambdaMemoryGb: 0.5,
  /**
   * The delivered event (its body up to 1 KB: 2 units), its day index entry (1) and the attempt (1). The
   * destination state is read once per 5 seconds per function and written only after a failure.
   */
  dynamoWriteUnits: 4,
  /** Rule matches delivered to an SQS target: EventBridge bills the PutEvents (the outbox's), not the match. */
  eventBridgeEvents: 0,
} as const;

export function deliveryCostPerMillion(prices: DeliveryPrices): CostLine[] {
  const u = DELIVERY_UNITS;
  const m = 1_000_000;
  return [
    {
      item: 'SQS requests',
      dollars: u.sqsRequests * prices.sqsPerMillionRequests,
      formula: `${u.sqsRequests} requests × $${prices.sqsPerMillionRequests}/M`,
    },
    {
      item: 'Lambda (delivery function)',
      dollars:
        u.lambdaInvocations * prices.lambdaPerMillionRequests +
        u.lambdaSeconds * u.lambdaMemoryGb * m * prices.lambdaArmPerGbSecond * u.lambdaInvocations,
      formula: `${u.lambdaInvocations} invocation × $${prices.lambdaPerMillionRequests}/M + ${u.lambdaSeconds} s × ${u.lambdaMemoryGb} GB (assumed) × $${prices.lambdaArmPerGbSecond}/GB-s`,
    },
    {
      item: 'DynamoDB delivery log writes',
      dollars: u.dynamoWriteUnits * prices.dynamoPerMillionWrites,
      formula: `${u.dynamoWriteUnits} write units × $${prices.dynamoPerMillionWrites}/M`,
    },
    {
      item: 'EventBridge rule matches',
      dollars: u.eventBridgeEvents * prices.eventBridgePerMillionEvents,
      formula: 'matches to an SQS target are not billed (the PutEvents is, in the callback line)',
    },
  ];
}

/**
 * A million deliveries to an `sqs` destination: the relay's own path is the https one (its queue, the
 * delivery function, the log writes, the rule match). The function time stays the https assumption: one
 * SendMessage round trip to another region instead of an HTTPS one. Two lines cost the relay nothing and
 * are printed so no one looks for them: the partner's queue bills the SendMessage to its owner, and STS
 * does not bill AssumeRole (kept an hour per role and warm function: shared/destinations/sqs/role-credentials.ts).
 */
export function sqsDeliveryCostPerMillion(prices: DeliveryPrices): CostLine[] {
  return [
    ...deliveryCostPerMillion(prices),
    {
      item: "SQS SendMessage to the partner's queue",
      dollars: 0,
      formula: "billed to the partner's account (the queue's owner), not the relay's",
    },
    {
      item: 'STS AssumeRole (partner role)',
      dollars: 0,
      formula: 'free; about once an hour per destination per warm function container, not per delivery',
    },
  ];
}
