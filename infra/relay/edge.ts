import { SecretValue, Stack } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as cloudfrontOrigins from 'aws-cdk-lib/aws-cloudfront-origins';
import type { Construct } from 'constructs';
import { ORIGIN_VERIFY_HEADER, type RelayConfig } from '../../shared/config/schema';
import type { RelayCloudFrontEdge } from './props';

/**
 * The CloudFront edge: the HTTP API as its only origin (HTTPS, TLS 1.2), every method, nothing cached,
 * every viewer header but Host forwarded plus CloudFront's own (CloudFront-Viewer-Address among them:
 * the managed AllViewerExceptHostHeader policy, API Gateway refuses a foreign Host), the query string,
 * the body, and the origin secret in `x-relay-origin-verify` (CloudFront overwrites a viewer's header
 * of that name).
 *
 * The origin secret is never plain text in the template: with `edge.originVerifySecretId` (or a
 * `SecretValue` prop) the header value is a CloudFormation dynamic reference to Secrets Manager,
 * resolved at deploy time, the same secret the callback function reads. A plain string (the prop, or
 * `edge.originVerifySecrets[0]`) is refused by synth unless the config's development flag allows
 * inline secrets (infra/relay/validate.ts). Why a reference and not a secret generated here: the
 * function and the distribution must agree on one value, and rotation (docs/deploy.md) is a
 * Secrets Manager update plus a deploy, with the previous value accepted meanwhile.
 *
 * `originDomainName`: the API's custom domain when there is one, so the execute-api endpoint can be
 * turned off (then CloudFront and the management API use the custom domain).
 */
export function createDistribution(
  scope: Construct,
  api: apigwv2.IHttpApi,
  edge: RelayCloudFrontEdge,
  config: RelayConfig,
  originDomainName?: string,
): cloudfront.Distribution {
  const stack = Stack.of(scope);
  const secretId = (config.edge as { originVerifySecretId?: string }).originVerifySecretId;
  const secret =
    edge.originVerifySecret !== undefined
      ? typeof edge.originVerifySecret === 'string'
        ? edge.originVerifySecret
        : // A token: the template holds {{resolve:secretsmanager:…}}, never the value.
          edge.originVerifySecret.unsafeUnwrap()
      : secretId !== undefined
        ? SecretValue.secretsManager(secretId, { jsonField: 'originVerifySecret' }).unsafeUnwrap()
        : config.edge.originVerifySecrets[0]!;
  const origin = new cloudfrontOrigins.HttpOrigin(
    originDomainName ?? `${api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`,
    {
      protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
      customHeaders: { [ORIGIN_VERIFY_HEADER]: secret },
    },
  );
  return new cloudfront.Distribution(scope, 'Edge', {
    comment: 'Mobile-money relay: provider callbacks through AWS WAF',
    defaultBehavior: {
      origin,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      compress: false,
    },
    priceClass: edge.priceClass ?? cloudfront.PriceClass.PRICE_CLASS_200,
    webAclId: edge.webAclArn,
    domainNames: edge.domainNames,
    certificate: edge.certificate,
    minimumProtocolVersion: edge.certificate ? cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021 : undefined,
    enableLogging: false,
  });
}
