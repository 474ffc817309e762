import { C2B_DEADLINE_CAP_MS, DARAJA_DEFAULT_SOURCE_IPS } from './schema';

/**
 * What the relay's infrastructure (infra/) needs to know about Daraja. Plain data, no AWS SDK or CDK
 * import: the provider registry carries it into every function bundle.
 */
export const darajaInfra = {
  id: 'daraja',
  name: 'Daraja',
  retriesCallbacks: true,
  /** What authenticates a callback besides the path secret, and what a refused one usually points at. */
  callbackCheck: { name: 'Daraja source-IP allow-list', misconfigured: 'Daraja IPs', checksSourceIp: true },
  /** The callback URLs are registered with Daraja (C2B RegisterURL): a silent account may have lost them. */
  urlRegistration: 'Daraja URL registration',
  /** Daraja cuts a C2B validation off at 8 s (drawn on the ack latency graph). */
  ackLimit: {
    ms: 8000,
    label: 'Daraja C2B limit (8 s)',
    phrase: "Daraja's 8 seconds limit (C2B validation)",
  },
  /**
   * Account settings (dotted keys) that set how long the handler may take to answer a callback: the
   * API's integration timeout must leave room for them.
   */
  callbackDeadlines: [{ setting: 'c2b.deadlineMs', capMs: C2B_DEADLINE_CAP_MS }],
  /**
   * The Pull Transactions API the poller pulls C2B payments from (docs/pull-and-balances.md): it answers
   * only 48 h back, so the pull-age page must come before that (infra/relay/statements.ts).
   */
  pullApi: { name: 'Daraja Pull Transactions API', lookBackSeconds: 48 * 3600 },
  /**
   * Where Daraja calls from (the accounts' default `sourceIps.allow`): the edge's rate rule never counts
   * these, and the web ACL can enforce them on Daraja's paths (`RelayEdgeWebAcl` `enforceSourceRanges`).
   */
  callbackSources: DARAJA_DEFAULT_SOURCE_IPS,
  /**
   * C2B validation waits on a decision (up to the account's deadline, at most 7.5 s): its own function
   * and concurrency, so slow decisions never hold the executions other callbacks need.
   */
  decisionRoutes: [
    {
      id: 'C2bValidation',
      method: 'POST',
      path: 'c2b/validation',
      worstCaseMs: C2B_DEADLINE_CAP_MS,
      throttle: { rateLimit: 5, burstLimit: 10 },
    },
  ],
} as const;
