/**
 * What the relay's infrastructure (infra/) needs to know about Airtel: nothing beyond what every
 * provider gets (no documented callback time limit, no deadline setting). Plain data, no AWS SDK or CDK
 * import: the provider registry carries it into every function bundle.
 */
export const airtelInfra = {
  id: 'airtel',
  name: 'Airtel',
  retriesCallbacks: true,
  /** What authenticates a callback besides the path secret, and what a refused one usually points at. */
  callbackCheck: { name: 'Airtel HMAC hash', misconfigured: 'Airtel key' },
  /** The ack p99 (the callback function's duration) above this pages: no documented limit, so MoMo's 2 s budget is the yardstick. */
  ackLatencyAlarmMs: 1800,
} as const;
