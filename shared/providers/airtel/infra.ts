/**
 * What the relay's infrastructure (infra/) needs to know about Airtel: nothing beyond what every
 * provider gets (no documented callback time limit, no deadline setting). Plain data, no AWS SDK or CDK
 * import: the provider registry carries it into every function bundle.
 */
export const airtelInfra = {
  id: 'airtel',
} as const;
