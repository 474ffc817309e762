/**
 * What the relay's infrastructure (infra/) needs to know about MoMo. Plain data, no AWS SDK or CDK
 * import: the provider registry carries it into every function bundle.
 */
export const momoInfra = {
  id: 'momo',
  /** How operators' texts (alarm descriptions, nag reasons) name the provider. */
  name: 'MoMo',
  /** MTN calls back once: a callback answered 5xx or not at all is lost (the poller reconciles it). */
  retriesCallbacks: false,
  /** MTN's callback page: a callback times out after 2 s (drawn on the ack latency graph). */
  ackLimit: { ms: 2000, label: 'MoMo budget (2 s)', phrase: "MoMo's 2 s" },
  /** The ack p99 (the callback function's duration) above this pages: 200 ms short of the 2 s budget, and MoMo may not retry. */
  ackLatencyAlarmMs: 1800,
} as const;
