import { Stack } from 'aws-cdk-lib';
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
 */
export function createDistribution(
  scope: Construct,
  api: apigwv2.IHttpApi,
  edge: RelayCloudFrontEdge,
  config: RelayConfig,
): cloudfront.Distribution {
  const stack = Stack.of(scope);
  const secret =
    edge.originVerifySecret === undefined
      ? config.edge.originVerifySecrets[0]!
      : typeof edge.originVerifySecret === 'string'
        ? edge.originVerifySecret
        : edge.originVerifySecret.unsafeUnwrap();
  const origin = new cloudfrontOrigins.HttpOrigin(
    `${api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`,
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
