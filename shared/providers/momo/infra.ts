/**
 * What the relay's infrastructure (infra/) needs to know about MoMo. Plain data, no AWS SDK or CDK
 * import: the provider registry carries it into every function bundle.
 */
export const momoInfra = {
  id: 'momo',
  /** MTN's callback page: a callback times out after 2 s (drawn on the ack latency graph). */
  ackLimit: { ms: 2000, label: 'MoMo budget (2 s)', phrase: "MoMo's 2 s" },
} as const;
