import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { RelayError } from '../domain/errors';
import { lambdaMiddlewares } from './lambda-middleware';
import type { RelayLogger } from '../app/ports';
import { toApiGatewayResult, toInboundRequest } from '../http/api-gateway';
import { errorResponse, internalErrorResponse } from '../http/error-mapping';
import type { HttpResponse, InboundRequest } from '../http/types';

type HttpEvent = APIGatewayProxyEventV2;
type HttpResult = APIGatewayProxyStructuredResultV2;

/** Last line of defence: named errors get their mapped answer, anything else a logged 500 — never a crash. */
function errorBoundary(logger: RelayLogger): MiddlewareObj<HttpEvent, HttpResult> {
  return {
    onError: async (request) => {
      const error = request.error;
      if (error instanceof RelayError) {
        request.response = toApiGatewayResult(errorResponse(error));
        return;
      }
      logger.error('unhandled error', { error });
      request.response = toApiGatewayResult(internalErrorResponse(request.context.awsRequestId ?? 'unknown'));
    },
  };
}

/**
 * The chain every HTTP function uses: the X-Ray segment and metrics flush (lambdaMiddlewares), logger
 * context, error boundary, then one call into the domain.
 */
export function httpHandler(logger: RelayLogger, handle: (request: InboundRequest) => Promise<HttpResponse>) {
  const chain = middy<HttpEvent, HttpResult, Error, Context>();
  chain.use(lambdaMiddlewares<HttpEvent, HttpResult>());
  const powertools = logger instanceof Logger ? logger : (logger as { inner?: unknown }).inner;
  if (powertools instanceof Logger) chain.use(injectLambdaContext(powertools, { resetKeys: true }));
  return chain.use(errorBoundary(logger)).handler(async (event, context) => {
    const request = toInboundRequest(event);
    const remainingMs = context?.getRemainingTimeInMillis?.();
    return toApiGatewayResult(
      await handle(typeof remainingMs === 'number' ? { ...request, remainingMs } : request),
    );
  });
}
