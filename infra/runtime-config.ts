/**
 * What the functions receive in RELAY_CONFIG_JSON: the config as written, minus what only the local
 * server uses (`local`, `management.bearerToken`), as compact JSON (Lambda's 4 KB environment limit).
 * No aws-cdk-lib import: scripts/bundle-size.ts uses it too.
 */
export function inlineConfigJson(input: unknown): string {
  const {
    local: _local,
    management,
    ...rest
  } = input as Record<string, unknown> & {
    management?: Record<string, unknown>;
  };
  const { bearerToken: _token, ...managementRest } = management ?? {};
  return JSON.stringify({ ...rest, management: managementRest });
}
