/**
 * The relay as a CDK library: `import { MobileMoneyRelay } from '<this repo>/infra'` in another CDK app
 * (docs/construct.md). Peer dependencies: aws-cdk-lib, constructs, cdk-nag, cdk-monitoring-constructs,
 * esbuild (bundling without Docker).
 */
export {
  BUFFER_CONSUMER_TIMEOUT,
  CALLBACK_FUNCTION_TIMEOUT,
  CALLBACK_INTEGRATION_TIMEOUT,
  DEFAULT_CALLBACK_RESERVED_CONCURRENCY,
  DEFAULT_CALLBACK_THROTTLE,
  DEFAULT_MANAGEMENT_THROTTLE,
  MANAGEMENT_ROUTES,
  MobileMoneyRelay,
  DEFAULT_SECRET_NAME_PREFIX,
  type MobileMoneyRelayProps,
  OUTBOX_FILTER_PATTERN,
  POLLER_TABLE_ACTIONS,
  type RelayCloudFrontEdge,
  type RelayCustomDomain,
  type RelaySubscriberOptions,
  type RelayThrottle,
  secretArns,
  SUBSCRIBER_RULE_ACTIONS,
  TABLE_DATA_ACTIONS,
  TABLE_KEY_ACTIONS,
} from './relay-construct';
export {
  ALARMED_RELAY_METRICS,
  SILENT_PROVIDERS_METRIC,
  PROVIDER_ACK_LIMIT,
  RelayMonitoring,
} from './monitoring';
export { RelayStack, type RelayStackProps } from './relay-stack';
export {
  DEFAULT_EDGE_RATE_LIMIT,
  RelayEdgeWebAcl,
  type RelayEdgeWebAclProps,
  RelayEdgeWebAclStack,
  type RelayEdgeWebAclStackProps,
} from './edge-web-acl';
export { RELAY_FUNCTIONS, type RelayFunctionId } from './bundling';
export { DEFAULT_METRICS_NAMESPACE } from '../shared/config/metric-names';
export type { RelayConsoleDomain, RelayConsoleOptions } from './relay/console';
export type { RelayIsolationProps } from './relay/isolation-props';
